"""Profiling a run with cProfile, as dolma's ``tag --profile.enable`` does."""

from __future__ import annotations

import contextlib
import cProfile
import io
import pstats
import sys
from collections.abc import Iterator

from dolma_sql import storage

@contextlib.contextmanager
def profiled(enable: bool, *, output: str | None, sort_key: str = "tottime", lines: int = 100) -> Iterator[None]:
    """Profile the block when ``enable``: the ``lines`` costliest functions by ``sort_key`` are written
    to ``output`` (any storage URL; standard output when None). Only the calling process is profiled,
    so the units must run in it (a serial executor)."""
    if not enable:
        yield
        return
    profile = cProfile.Profile()
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        report = io.StringIO()
        pstats.Stats(profile, stream=report).sort_stats(sort_key).print_stats(lines)
        if output is None:
            sys.stdout.write(report.getvalue())
        else:
            storage.write_bytes(output, report.getvalue().encode())
