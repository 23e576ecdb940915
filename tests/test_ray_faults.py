"""Faults of a run on Ray, each found by an event rather than a timer: a unit is held by the ``pause_v1``
tagger until the test lets it go, so the test knows which worker runs it. A killed worker's unit runs again
and the run writes what a clean run writes; a killed driver's run resumes from the ledger to the same
output; Ctrl-C cancels the tasks and the driver exits promptly."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest
from fault_helpers import EVENT_SECONDS, PAUSED, Run, gone, stopped, wait_for
from runtime_helpers import no_temp_files


@pytest.fixture()
def run(tmp_path, ray_cluster) -> Iterator[Run]:
    run = Run(tmp_path, {"executor": {"kind": "ray", "address": ray_cluster.address}})
    yield run
    run.let_go()  # whatever still waits finishes


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
    assert f"skipping {finished} of 4" in run.rerun()
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
