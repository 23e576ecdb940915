"""Shared checks of the runtime contract: a command killed at random points and rerun writes what
an uninterrupted run writes; a command's outputs compared byte for byte."""

from __future__ import annotations

import contextlib
import fnmatch
import gzip
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import zstandard

LEDGER_FOLDER = ".dolma-sql"


def cli_command(args: list[str]) -> list[str]:
    return [sys.executable, "-P", "-m", "dolma_sql", *args]


def run_cli(args: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cli_command(args), cwd=cwd, capture_output=True, text=True, **kwargs)


def output_contents(folder: Path) -> dict[str, bytes]:
    """Every output file under ``folder`` (ledger records left out), decompressed, by relative path.

    Decompressed, because gzip/zstd bytes of equal content are already pinned by their own tests.
    """
    contents = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or LEDGER_FOLDER in path.relative_to(folder).parts:
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        elif path.suffix == ".zst":
            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        contents[str(path.relative_to(folder))] = data
    return contents


def ledger_records(folder: Path, pattern: str = "*.done") -> int:
    """How many units the ledger under ``folder`` has recorded as finished (``pattern``: of one command)."""
    return sum(1 for path in live_files(folder, pattern) if LEDGER_FOLDER in path.parts)


def live_files(folder: Path, pattern: str) -> list[Path]:
    """The files under ``folder`` whose names match ``pattern``, looked for while a run may still make folders there
    and remove the empty ones it made (``os.walk`` passes over a folder that goes; ``Path.rglob`` raises)."""
    return [Path(root, name) for root, _, names in os.walk(folder) for name in fnmatch.filter(names, pattern)]


def kill_at_random_points(args: list[str], cwd: Path, *, kills: int, seed: int, clean_seconds: float, watch: Path | None = None) -> int:
    """Start ``dolma-sql args`` ``kills`` times and SIGKILL it with its workers; returns how many runs were
    killed before they finished.

    The first run is killed as soon as it has recorded a unit in the ledger under ``watch`` (``cwd`` by
    default): an event, so it is killed part-way however busy the machine is (given more than one unit
    to do). The others are killed after a random delay within the duration of a clean run, anywhere
    from start-up to the last commit.
    """
    rng = random.Random(seed)
    watch = watch or cwd
    killed = 0
    for attempt in range(kills):
        before = ledger_records(watch)
        process = subprocess.Popen(
            cli_command(args), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        if attempt == 0:
            while process.poll() is None and ledger_records(watch) == before:
                time.sleep(0.005)
        else:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=rng.uniform(0.05, 1.0) * clean_seconds)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            killed += 1
        process.wait()
    return killed


def timed_run(args: list[str], cwd: Path) -> float:
    """Run ``dolma-sql args`` to completion (it must succeed) and return its wall time."""
    started = time.monotonic()
    result = run_cli(args, cwd)
    assert result.returncode == 0, result.stderr[-3000:]
    return time.monotonic() - started


def no_temp_files(folder: Path) -> list[str]:
    """Temp files of the commit protocol left under ``folder`` (there must be none after a finished run)."""
    return [str(path) for path in folder.rglob("*.tmp")]
