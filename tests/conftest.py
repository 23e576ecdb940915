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


RAY_FIXTURES = {"ray_cluster", "ray_nodes"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for pytest-xdist's ``--dist loadgroup`` (``pyproject.toml``): a module runs whole on one worker, so its
    module and session fixtures are built once; the modules that start Ray share one worker, so that there is one
    Ray cluster at a time (two would compete for Ray's fixed default ports, and ``ray.init()`` with no address joins
    the last one started). A test that asks for a Ray fixture only at run time carries the ``ray`` mark instead."""
    on_ray = {item.module.__name__ for item in items if RAY_FIXTURES & set(item.fixturenames) or item.get_closest_marker("ray")}
    for item in items:
        module = item.module.__name__
        item.add_marker(pytest.mark.xdist_group("ray" if module in on_ray else module))


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


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """A SeaweedFS S3 gateway on loopback for the whole session; the AWS variables point every client at it."""
    from services import start_s3_server

    server = start_s3_server(tmp_path_factory.mktemp("seaweedfs"))
    saved = {key: os.environ.get(key) for key in server.environment}
    os.environ.update(server.environment)
    yield server
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    server.stop()


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory, s3_server):
    """A Ray head node with 2 CPUs on loopback; its workers see the S3 server and can import the tests' helpers."""
    from services import RAY_ENVIRONMENT, start_ray_head

    os.environ.update(RAY_ENVIRONMENT)
    folder = Path("/tmp") / f"ray-{os.getpid()}"  # short: Ray's socket paths must fit in 107 bytes
    cluster = start_ray_head(folder, cpus=2, python_path=[str(REPO / "tests")])
    yield cluster
    cluster.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def ray_nodes(tmp_path_factory, s3_server):
    """A simulated Ray cluster of 3 nodes with 1 CPU each (``ray.cluster_utils.Cluster``) on loopback, for tests
    whose units must land on different nodes; its processes see this checkout and the tests' helpers."""
    from services import RAY_ENVIRONMENT

    saved = {key: os.environ.get(key) for key in [*RAY_ENVIRONMENT, "PYTHONPATH"]}
    os.environ.update(RAY_ENVIRONMENT)  # before Ray is imported: it reads some of them once
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "tests"), saved["PYTHONPATH"] or ""])  # inherited by the nodes
    from unittest import mock

    import ray._common.utils
    import ray._private.utils
    from ray.cluster_utils import Cluster

    node = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "object_store_memory": 100 * 2**20}
    folder = Path("/tmp") / f"ray-nodes-{os.getpid()}"  # short: Ray's socket paths must fit in 107 bytes
    # the cluster is only for the tests that name its address: it does not become the machine's default
    # cluster (/tmp/ray/ray_current_cluster, which another process's ray.init() would join), nor unset one
    with mock.patch.object(ray._private.utils, "write_ray_address"):
        cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False, "temp_dir": str(folder)})
    try:
        for _ in range(2):
            cluster.add_node(**node)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        with mock.patch.object(ray._common.utils, "reset_ray_address"):
            cluster.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def read_only_folder(tmp_path):
    """A folder nobody can write into, root included: a read-only tmpfs (as root), else a folder without write bits."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o500)
        yield folder
        folder.chmod(0o700)
        return
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)], check=True)
    yield folder
    subprocess.run(["umount", str(folder)], check=True)
