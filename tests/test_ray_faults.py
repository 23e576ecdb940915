"""Faults of a run on Ray, each found by an event rather than a timer: a unit is held by the ``pause_v1``
tagger until the test lets it go, so the test knows which worker runs it. A killed worker's unit runs again
and the run writes what a clean run writes; a killed driver's run resumes from the ledger to the same
output; Ctrl-C cancels the tasks and the driver exits promptly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
import yaml
from runtime_helpers import no_temp_files, output_contents
from tag_helpers import write_jsonl_gz

import dolma_sql
from conftest import REPO
from dolma_sql.runtime.local import LocalExecutor

PAUSED = "b"
"""The document file whose unit the tagger holds."""

EVENT_SECONDS = 180
"""How long an event may take on a busy machine before the test fails."""


def wait_for(condition: Callable[[], object], what: str, *, seconds: float = EVENT_SECONDS) -> object:
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)
    return found


class Run:
    """The corpus, the signals folder of the pausing tagger, and the tag config of one test."""

    def __init__(self, root: Path, address: str) -> None:
        self.root = root
        self.signals = root / "signals"
        self.signals.mkdir(parents=True)
        self.address = address
        for name in ("a", PAUSED, "c", "d"):
            documents = [{"id": f"{name}-{index}", "text": f"document {index} of file {name} " * (index + 1)} for index in range(30)]
            if name == PAUSED:
                documents.insert(7, {"id": "pause", "text": str(self.signals)})
            for copy in ("clean", "faulted"):
                write_jsonl_gz(root / copy / "documents" / f"{name}.jsonl.gz", documents)

    def config(self, copy: str) -> dict:
        return {
            "documents": [str(self.root / copy / "documents" / "*.jsonl.gz")],
            "taggers": ["pause_v1", "char_length_v1"],
            "tagger_modules": [str(REPO / "tests" / "ray_pause_tagger.py")],
            "experiment": "p",
        }

    def clean(self) -> dict[str, bytes]:
        """The output of an uninterrupted run (the tagger let go from the start), on the local executor."""
        self.let_go()
        dolma_sql.tag(self.config("clean"), executor=LocalExecutor(1))
        self.reset()
        return output_contents(self.root / "clean" / "attributes")

    def start(self, **popen) -> subprocess.Popen:
        """``dolma-sql tag`` of the faulted copy on the Ray cluster, in a process group of its own."""
        config = self.root / "tag.yaml"
        config.write_text(yaml.safe_dump({**self.config("faulted"), "executor": {"kind": "ray", "address": self.address}}))
        return subprocess.Popen(
            [sys.executable, "-P", "-m", "dolma_sql", "-c", str(config), "tag"],
            cwd=self.root, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True, **popen,
        )  # fmt: skip

    def paused_workers(self) -> list[int]:
        return sorted(int(path.name.removeprefix("pid-")) for path in self.signals.glob("pid-*"))

    def let_go(self) -> None:
        (self.signals / "go").touch()

    def reset(self) -> None:
        for path in self.signals.iterdir():
            path.unlink()

    def finished_units(self) -> int:
        return len(list((self.root / "faulted" / "attributes" / "p" / ".dolma-sql").glob("*.done")))

    def outputs(self) -> dict[str, bytes]:
        return output_contents(self.root / "faulted" / "attributes")


@pytest.fixture()
def run(tmp_path, ray_cluster) -> Iterator[Run]:
    run = Run(tmp_path, ray_cluster.address)
    yield run
    run.let_go()  # whatever still waits finishes


def stopped(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_killed_worker_s_unit_runs_again_and_the_run_writes_the_output_of_a_clean_run(run):
    expected = run.clean()
    process = run.start()
    try:
        first = wait_for(run.paused_workers, "the worker holding the paused unit")[0]
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: set(run.paused_workers()) - {first}, "the paused unit to run again on another worker")
        run.let_go()
        _, stderr = process.communicate(timeout=EVENT_SECONDS)
    finally:
        stopped(process)
    assert process.returncode == 0, stderr[-3000:]
    assert run.outputs() == expected
    assert run.finished_units() == 4 and not no_temp_files(run.root / "faulted")


def test_a_killed_driver_s_run_resumes_from_the_ledger(run):
    expected = run.clean()
    process = run.start()
    try:
        worker = wait_for(run.paused_workers, "the worker holding the paused unit")[0]
        wait_for(lambda: run.finished_units() >= 1, "a unit to finish while the paused one waits")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        wait_for(lambda: gone(worker), "Ray to end the workers of the dead driver")
    finally:
        stopped(process)
    finished = run.finished_units()
    assert 1 <= finished < 4
    run.let_go()
    rerun = run.start()
    try:
        _, stderr = rerun.communicate(timeout=EVENT_SECONDS)
    finally:
        stopped(rerun)
    assert rerun.returncode == 0, stderr[-3000:]
    assert f"skipping {finished} of 4" in stderr
    assert run.outputs() == expected and not no_temp_files(run.root / "faulted")


def test_ctrl_c_cancels_the_tasks_and_the_driver_exits_promptly(run):
    process = run.start(preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    try:
        worker = wait_for(run.paused_workers, "the worker holding the paused unit")[0]
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=EVENT_SECONDS)
        exited = time.monotonic() - interrupted
        wait_for(lambda: gone(worker), "the paused unit's task to be cancelled")
    finally:
        stopped(process)
    assert process.returncode != 0
    assert exited < 60, f"the driver took {exited:.0f} s to exit"
    assert not (run.root / "faulted" / "attributes" / "p" / f"{PAUSED}.jsonl.gz").exists()
