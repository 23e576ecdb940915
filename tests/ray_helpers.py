"""Units for the Ray executor tests: top-level functions, so Ray workers import them from tests/."""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from dolma_sql.errors import InputError, OutputError
from dolma_sql.runtime import progress
from dolma_sql.storage import remote


@dataclass(frozen=True)
class FlakyUnit:
    """Fails with ``error`` on its first ``failures`` attempts, then succeeds; each attempt leaves a file in ``folder``."""

    key: str
    folder: str
    failures: int = 0
    error: str = "connection"
    size: int = 1


def flaky(unit: FlakyUnit) -> dict[str, float]:
    Path(unit.folder, f"{unit.key}.{uuid.uuid4().hex}").touch()
    if attempts(unit.folder, unit.key) <= unit.failures:
        if unit.error == "connection":
            raise ConnectionResetError("the store closed the connection")
        if unit.error == "wrapped":  # how storage reports a store that went away: a user error naming the object
            try:
                raise ConnectionRefusedError("connection refused")
            except ConnectionRefusedError:
                raise OutputError("cannot upload the object", path=unit.key) from None
        if unit.error == "input":
            raise InputError("malformed JSON", path=unit.key, line=3)
        if unit.error == "denied":  # how storage reports refused credentials
            with remote.errors(unit.key, "read"):
                raise PermissionError(13, "Forbidden")
        raise ValueError("a bug in the unit")
    return {"units": 1, "documents": 1}


def attempts(folder: str, key: str) -> int:
    return len(list(Path(folder).glob(f"{key}.*")))


def advancing(unit: int) -> dict[str, float]:
    """Reports ``unit`` bytes read, once in the middle of the unit and the rest as it ends."""
    progress.advance(bytes_read=unit // 2)
    time.sleep(progress.REPORT_SECONDS)
    progress.advance(bytes_read=unit - unit // 2, documents=1)
    return {"units": 1}


def environment(unit: str) -> dict[str, float]:
    """Whether the worker has the variable ``unit`` (workers take the environment of their node)."""
    return {"set": float(bool(os.environ.get(unit)))}


def polars_threads(unit: int) -> dict[str, float]:
    """The threads of Polars in the worker (set from ``POLARS_MAX_THREADS`` when Polars is imported)."""
    import polars

    return {"threads": polars.thread_pool_size()}
