"""Shared fixtures: the conformance data, and the upstream dolma 1.2.1 oracle."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DOLMA_SQL_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance" / "dolma-669f534"


def find_oracle() -> Path | None:
    """The venv holding upstream ``dolma==1.2.1``: ``$DOLMA_SQL_ORACLE``, else ``<repo>/.oracle``, else ``../.oracle``."""
    candidates = [os.environ.get("DOLMA_SQL_ORACLE"), REPO / ".oracle", REPO.parent / ".oracle"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "bin" / "dolma").exists():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def oracle() -> Path:
    """Path to the upstream ``dolma`` executable. Skips locally without one; in CI a missing oracle fails."""
    venv = find_oracle()
    if venv is None:
        if os.environ.get("CI"):
            pytest.fail("CI must create the oracle venv (.ci/run installs dolma==1.2.1 into .oracle)")
        pytest.skip("no upstream dolma oracle venv (python -m venv .oracle && .oracle/bin/pip install dolma==1.2.1 pycld2)")
    return venv / "bin" / "dolma"


def run_oracle(oracle: Path, args: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run upstream dolma; raises with its stderr when it fails."""
    result = subprocess.run([str(oracle), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"upstream dolma {' '.join(args)} failed:\n{result.stderr[-4000:]}")
    return result


@pytest.fixture()
def conformance(tmp_path: Path) -> Path:
    """A writable copy of upstream's conformance folder; configs run from inside it."""
    if not CONFORMANCE.exists():
        pytest.fail(f"conformance data missing at {CONFORMANCE} (set DOLMA_SQL_SHARED)")
    target = tmp_path / "conformance"
    shutil.copytree(CONFORMANCE, target)
    return target
