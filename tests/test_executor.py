"""The local executor: every unit runs once, in the caller or in workers; a user error in one unit
does not stop the others; workers (and only they) see the executor's ``env``."""

from __future__ import annotations

import os

import pytest
from executor_helpers import square

from dolma_sql.errors import InputError
from dolma_sql.executor import LocalExecutor, run_units

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
