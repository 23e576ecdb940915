"""The local executor: every unit runs once, in the caller or in workers; a user error in one unit
does not stop the others; workers (and only they) see the executor's ``env``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from executor_helpers import square

from dolma_sql.errors import InputError
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.runtime import run_units

UNITS = list(range(7))
EXPECTED = {"units": 7, "sum_of_squares": sum(u * u for u in UNITS)}


def totals(executor: LocalExecutor, units=UNITS) -> dict[str, float]:
    result = run_units(square, units, executor=executor, label="test", quiet=True)
    return {key: result[key] for key in EXPECTED}


@pytest.mark.parametrize("processes", [1, 2, 3])
@pytest.mark.parametrize("caller_works", [False, True])
def test_every_unit_runs_once(processes, caller_works):
    assert totals(LocalExecutor(processes, caller_works=caller_works)) == EXPECTED


def test_a_failing_unit_is_raised_after_the_others_finish():
    finished = []
    with pytest.raises(InputError, match="unit -1 is negative"):
        run_units(square, [1, -1, 2, 3], executor=LocalExecutor(2, caller_works=True), label="test", quiet=True,
                  on_result=lambda unit, _: finished.append(unit))
    assert sorted(finished) == [1, 2, 3]


def test_env_reaches_the_workers_only():
    result = run_units(square, UNITS, executor=LocalExecutor(2, env={"EXECUTOR_TEST_MARK": "worker"}), label="test", quiet=True)
    assert result["pid_is_worker"] == len(UNITS)  # with an env, every unit runs in a worker
    assert "EXECUTOR_TEST_MARK" not in os.environ


@pytest.mark.parametrize("env", [None, {"EXECUTOR_TEST_MARK": "worker"}])
def test_a_started_executor_preloads_its_workers_and_serves_several_maps(env):
    with LocalExecutor(2, env=env, caller_works=True, preload="executor_preload_mark") as executor:
        for _ in range(2):  # the same workers serve every map until the executor is left
            result = run_units(square, UNITS, executor=executor, label="test", quiet=True)
            assert {key: result[key] for key in EXPECTED} == EXPECTED
            assert result["in_worker"] >= 1 and result["preloaded"] == result["in_worker"]  # workers, and only they, imported it
            assert result["pid_is_worker"] == (result["in_worker"] if env else 0)
    assert executor._pool is None and "EXECUTOR_TEST_MARK" not in os.environ


def test_the_command_line_exits_without_a_final_cycle_collection():
    """``main`` freezes the heap on the way out, so the interpreter's last collections walk nothing."""
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen objects:', gc.get_freeze_count()))\n"  # runs after main returns
        "from dolma_sql.cli import main\n"
        "sys.argv = ['dolma-sql', '--help']\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    frozen = int(result.stdout.rsplit("frozen objects:", 1)[1])
    assert frozen > 1000
