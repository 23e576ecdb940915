"""Faults of a run on the local executor's process pool, each found by an event rather than a timer (the
``pause_v1`` tagger holds one unit until the test lets it go): a worker killed mid-unit stops the run with one
error naming the unit, and the rerun resumes to the output of a clean run; Ctrl-C, which a terminal sends to
every process of the run, stops it with one line and no traceback, and leaves no worker behind."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import psutil
import pytest
from fault_helpers import EVENT_SECONDS, PAUSED, Run, stopped, wait_for
from runtime_helpers import no_temp_files


@pytest.fixture()
def run(tmp_path) -> Iterator[Run]:
    run = Run(tmp_path, {"executor": {"kind": "local", "allocator": "system"}, "processes": 2})
    yield run
    run.let_go()  # whatever still waits finishes


def paused_worker(run: Run, driver: int) -> int:
    """The pool worker holding the paused unit (the caller takes the last of the queue, so a worker gets it)."""
    pid = wait_for(run.paused_workers, "the process holding the paused unit")[0]
    assert pid != driver, "the paused unit ran in the calling process, not in a worker"
    return pid


def test_a_killed_worker_stops_the_run_with_an_error_naming_its_unit_and_the_rerun_resumes(run):
    expected = run.clean()
    process = run.start()
    try:
        os.kill(paused_worker(run, process.pid), signal.SIGKILL)
        _, stderr = process.communicate(timeout=EVENT_SECONDS)
    finally:
        stopped(process)
    assert process.returncode == 1
    assert "Traceback" not in stderr, stderr[-3000:]
    assert "a worker process ended abruptly while running this unit" in stderr
    assert "rerun the same command to resume" in stderr and "lower --processes" in stderr
    run.rerun()
    assert run.outputs() == expected and not no_temp_files(run.root / "faulted")


def test_ctrl_c_stops_the_workers_at_once_with_one_line_and_the_rerun_resumes(run):
    expected = run.clean()
    process = run.start(preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    try:
        worker = psutil.Process(paused_worker(run, process.pid))
        os.killpg(process.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole foreground group
        _, stderr = process.communicate(timeout=EVENT_SECONDS)
        worker.wait(timeout=EVENT_SECONDS)  # stopped by the caller: it ignored the Ctrl-C and still held its unit
    finally:
        stopped(process)
    assert process.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr[-3000:]
    finished = run.finished_units()  # the units the caller had recorded when the Ctrl-C came
    assert f"interrupted: {finished} of 4 units finished and are kept, rerun the same command to resume" in stderr
    assert not (run.root / "faulted" / "attributes" / "p" / f"{PAUSED}.jsonl.gz").exists()
    run.rerun()
    assert run.outputs() == expected and not no_temp_files(run.root / "faulted")


def test_sigterm_to_the_caller_alone_ends_the_run_as_ctrl_c_does(run):
    """``kill PID``, ``timeout`` and job managers send SIGTERM to the caller only."""
    process = run.start()
    try:
        worker = psutil.Process(paused_worker(run, process.pid))
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=EVENT_SECONDS)
        worker.wait(timeout=EVENT_SECONDS)
    finally:
        stopped(process)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr[-3000:]
    assert "units finished and are kept, rerun the same command to resume" in stderr
    assert not list((run.root / "faulted").rglob("*.lock")), "the run released its locks"


def test_a_caller_killed_outright_leaves_no_worker_behind(run):
    process = run.start()
    try:
        worker = psutil.Process(paused_worker(run, process.pid))
        process.kill()
        worker.wait(timeout=EVENT_SECONDS)  # the parent-death signal ends it
    finally:
        stopped(process)
