"""Process-level tuning of a worker: allocator settings, the cycle collector, a quick exit.

They belong to the processes an executor runs units in, never to a command.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator
from functools import cache

RUNTIME_ENVIRONMENT = {
    "DUCKDB_JE_MALLOC_CONF": "dirty_decay_ms:10000,muzzy_decay_ms:10000",
    "_RJEM_MALLOC_CONF": "dirty_decay_ms:-1,muzzy_decay_ms:-1",
    "OPENBLAS_NUM_THREADS": "1",
}
"""Settings read once, when DuckDB, Polars and NumPy load.

- Polars' jemalloc keeps freed pages for reuse, as :func:`keep_freed_memory` does for glibc; by
  default it hands them back to the kernel within seconds and every batch faults them in again.
- DuckDB's jemalloc hands back pages unused for 10 s. A process keeps one connection for all the
  units it runs, and a unit takes about a second: with a shorter decay the JSON functions' arenas
  were handed back and faulted in again unit after unit; keeping every freed page instead let
  fragmentation grow RSS unit after unit.
- NumPy's OpenBLAS starts a thread per core that spins between calls; nothing here uses BLAS, and
  with one worker process per core those threads take CPU from the other workers.
"""


def tune_runtime() -> None:
    """Set :data:`RUNTIME_ENVIRONMENT` where the user has not (before DuckDB, Polars or NumPy is
    imported; worker processes inherit it)."""
    for key, value in RUNTIME_ENVIRONMENT.items():
        os.environ.setdefault(key, value)


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a unit runs.

    A unit decodes thousands of documents into short-lived acyclic objects, and each few hundred
    allocations set off a collection that walks them all; refcounting frees them anyway.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@cache
def keep_freed_memory() -> None:
    """Let glibc's malloc keep freed memory for reuse (once per process; no-op without glibc).

    Every batch allocates and frees the same large buffers; by default glibc maps each one afresh
    and unmaps it on free, so every batch pays the kernel for zeroed pages again. Peak RSS grows by
    a few percent.
    """
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    libc.mallopt(m_mmap_threshold, 256 << 20)
    libc.mallopt(m_trim_threshold, 512 << 20)


def release_freed_memory() -> None:
    """Hand the freed memory that glibc and Arrow keep for reuse back to the kernel, when a process's run of
    units ends: the next run's units (another stage) may allocate through other libraries (DuckDB's own
    allocator), which cannot reuse it, and the process's peak would be the sum of both."""
    import ctypes
    import sys

    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def exiting_without_cycle_collection() -> None:
    """Let a process that is about to exit skip the interpreter's final cycle collections.

    They walk every object of every library loaded (DuckDB, Arrow, Polars, sqlglot) at each exit,
    while the parent waits for its workers and the user for the parent. Frozen objects are never
    collected; the process ends right after, so nothing is lost.
    """
    gc.freeze()


def die_with_parent() -> None:
    """End this (worker) process when the process that started it ends, killed or not (Linux's parent-death signal):
    a pool whose caller was killed must not leave idle workers behind. No-op elsewhere."""
    import ctypes
    import signal

    parent = os.getppid()
    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)


FAST_ALLOCATORS = ("mimalloc", "jemalloc")
"""Preloaded into worker processes when installed (``apt install libmimalloc2.0``) and the
executor's ``allocator`` is ``auto``: the Rust tokenizer allocates a string per token, and glibc's
malloc/free is a large part of its time."""


def allocator_environment(allocator: str) -> dict[str, str]:
    """``LD_PRELOAD`` of the allocator for worker processes: ``system`` (glibc: nothing), ``auto`` (the first
    of :data:`FAST_ALLOCATORS` installed, else glibc) or a library's name or path, which must be installed.
    ``DOLMA_SQL_ALLOCATOR`` overrides it."""
    import ctypes.util

    from_environment = os.environ.get("DOLMA_SQL_ALLOCATOR")
    choice = from_environment or allocator
    if choice == "system":
        return {}
    for name in FAST_ALLOCATORS if choice == "auto" else (choice,):
        library = name if os.sep in name and os.path.isfile(name) else ctypes.util.find_library(name)  # a path, or a name
        if library:
            return {"LD_PRELOAD": f"{os.environ.get('LD_PRELOAD', '')} {library}".strip()}
    if choice != "auto":
        from dolma_sql.errors import ConfigError

        raise ConfigError(
            f"no allocator library {choice!r} is installed",
            path="DOLMA_SQL_ALLOCATOR" if from_environment else "executor.allocator",
            hint="name an installed one (mimalloc: apt-get install libmimalloc2.0), or auto (the first of mimalloc and jemalloc installed) or system",
        )
    return {}
