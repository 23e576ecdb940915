"""Units of work for the runtime tests: top-level functions, so spawned workers can import them."""

from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import dataclass

from dolma_sql import storage
from dolma_sql.errors import InputError
from dolma_sql.runtime import progress


def square(unit: int) -> dict[str, float]:
    if unit < 0:
        raise InputError(f"unit {unit} is negative", path=f"unit-{unit}")
    progress.advance(bytes_read=unit)
    return {
        "units": 1,
        "sum_of_squares": unit * unit,
        "preloaded_allocator": float("libc.so" in os.environ.get("LD_PRELOAD", "")),
        "polars_threads_set": float("POLARS_MAX_THREADS" in os.environ),
        "in_worker": float(multiprocessing.parent_process() is not None),
        "preloaded": float("executor_preload_mark" in sys.modules),
    }


@dataclass(frozen=True)
class WriteUnit:
    """Writes ``text`` to ``key``: a unit with an output, for the ledger tests."""

    key: str
    text: str
    size: int = 1


def write_unit(unit: WriteUnit) -> dict[str, float]:
    storage.write_bytes(unit.key, unit.text.encode())
    return {"documents": 1, "written": 1}


@dataclass(frozen=True)
class CopyUnit:
    """Copies the file ``source`` to ``key``: a unit with an input, for the ledger tests."""

    key: str
    source: str

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.source,)


def copy_unit(unit: CopyUnit) -> dict[str, float]:
    storage.write_bytes(unit.key, storage.read_bytes(unit.source))
    return {"written": 1}


def churn(megabytes: int) -> dict[str, float]:
    """Allocate and free ``megabytes`` in 1 MiB pieces from the C heap, which glibc then keeps for reuse."""
    pieces = [bytearray(1 << 20) for _ in range(megabytes)]
    del pieces
    return {"units": 1}
