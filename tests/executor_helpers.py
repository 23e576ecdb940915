"""Units of work for the executor tests: top-level functions, so spawned workers can import them."""

from __future__ import annotations

import multiprocessing
import os
import sys

from dolma_sql.errors import InputError


def square(unit: int) -> dict[str, float]:
    if unit < 0:
        raise InputError(f"unit {unit} is negative", path=f"unit-{unit}")
    return {
        "units": 1,
        "sum_of_squares": unit * unit,
        "pid_is_worker": float(os.environ.get("EXECUTOR_TEST_MARK") == "worker"),
        "in_worker": float(multiprocessing.parent_process() is not None),
        "preloaded": float("executor_preload_mark" in sys.modules),
    }
