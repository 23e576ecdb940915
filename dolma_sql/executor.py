"""Per-file units of work and the executors that run them.

Every command splits its job into independent units (one input file, or one output shard)
described by a small picklable dataclass, and a top-level function that processes one unit
and returns its counters. An :class:`Executor` maps that function over the units; the local
one uses processes, and a distributed one (Ray, …) only needs another ``map_unordered``.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import multiprocessing
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from functools import cache
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from dolma_sql.errors import DolmaSqlError

U = TypeVar("U")
Counters = dict[str, float]

console = Console(stderr=True)


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector for a unit that makes many short-lived acyclic objects.

    A mix batch decodes thousands of documents into dicts, and each few hundred allocations set off
    a collection that walks them all (3-4% of a mix's CPU); refcounting frees them anyway.
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

    Every batch of a tagging or mixing worker allocates and frees the same large buffers; by default
    glibc maps each one afresh and unmaps it on free, so every batch pays the kernel for zeroed pages
    again (a fifth to a third of the system time of a gopher + c4 + pii + cld2 run, and of a 1M-document
    dry run). Peak RSS grows by a few percent.
    """
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    libc.mallopt(m_mmap_threshold, 256 << 20)
    libc.mallopt(m_trim_threshold, 512 << 20)


def exiting_without_cycle_collection() -> None:
    """Let a process that is about to exit skip the interpreter's final cycle collections.

    They walk every object of every library loaded (DuckDB, Arrow, Polars, sqlglot): a fifth of a
    second at each exit, while the parent waits for its workers and the user for the parent. Frozen
    objects are never collected; the process ends right after, so nothing is lost.
    """
    gc.freeze()


def _worker_started(preload: str | None) -> None:
    """Every pool worker's initializer: it exits without final collections and imports ``preload``."""
    atexit.register(exiting_without_cycle_collection)
    if preload:
        importlib.import_module(preload)


RUNTIME_ENVIRONMENT = {
    "DUCKDB_JE_MALLOC_CONF": "dirty_decay_ms:10000,muzzy_decay_ms:10000",
    "_RJEM_MALLOC_CONF": "dirty_decay_ms:-1,muzzy_decay_ms:-1",
    "OPENBLAS_NUM_THREADS": "1",
}
"""Settings read once, when DuckDB, Polars and NumPy load.

- Polars' jemalloc keeps freed pages for reuse, as :func:`keep_freed_memory` does for glibc; by
  default it hands them back to the kernel within seconds and every batch faults them in again.
- DuckDB's jemalloc hands back pages unused for 10 s. A process keeps one connection for all the
  shards it mixes, and a shard takes about a second: with DuckDB's default decay, and still with 2 s,
  the JSON functions' arenas were handed back and faulted in again shard after shard (330k page
  faults and 1.5-1.9 s of system time for the mix bench; 10 s: 230k and 1.2-1.3 s). Keeping every
  freed page instead let fragmentation grow RSS shard after shard (570 -> 950 MB over 30 shards in
  one process); with 10 s it levels off at 750-830 MB.
- NumPy's OpenBLAS starts a thread per core that spins between calls; nothing here uses BLAS, and
  with one worker process per core those threads take CPU from the other workers (2% of a mix).
"""


def tune_runtime() -> None:
    """Set :data:`RUNTIME_ENVIRONMENT` where the user has not (before DuckDB, Polars or NumPy is
    imported; worker processes inherit it)."""
    for key, value in RUNTIME_ENVIRONMENT.items():
        os.environ.setdefault(key, value)


class Executor(ABC):
    """Runs ``fn`` over units and yields ``(unit, counters or exception)`` as each finishes."""

    @abstractmethod
    def map_unordered(self, fn: Callable[[U], Counters], units: Sequence[U]) -> Iterator[tuple[U, Counters | BaseException]]: ...


class LocalExecutor(Executor):
    """In-process for one process (easy to debug), a spawn-based process pool otherwise.

    ``env`` (e.g. ``LD_PRELOAD`` of a faster allocator) is set for the worker processes only;
    giving it always runs units in workers, even for one process. ``caller_works`` makes the
    calling process one of the ``processes``: it runs units itself between collecting the pool's
    results, so one worker fewer is spawned (each re-imports the libraries the caller already has,
    about half a CPU second); for callers with nothing else to do while units run.

    Every worker imports ``preload`` (the module of the unit function) as it starts. Used as a
    context manager, it starts the workers on entry, so they import it while the caller is still
    preparing the units; otherwise every ``map_unordered`` starts workers of its own once the units
    are known.
    """

    def __init__(self, processes: int = 1, env: dict[str, str] | None = None, caller_works: bool = False, preload: str | None = None) -> None:
        self.processes = max(1, processes)
        self.env = env or {}
        self.caller_works = caller_works and not self.env
        self.preload = preload
        self._pool: ProcessPoolExecutor | None = None

    @property
    def workers(self) -> int:
        return self.processes - 1 if self.caller_works else self.processes

    @property
    def _spawns(self) -> bool:
        """Whether units run in worker processes at all (with an ``env`` they always do)."""
        return bool(self.env) or self.processes > 1

    def __enter__(self) -> LocalExecutor:
        if self._spawns:
            with _environment(self.env):
                self._pool = self._new_pool(self.workers, self.preload)
                for _ in range(self.workers):  # each task that finds no idle worker spawns one
                    self._pool.submit(_no_op)
        return self

    def __exit__(self, *exc_info) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    @staticmethod
    def _new_pool(workers: int, preload: str | None) -> ProcessPoolExecutor:
        """Workers spawn as tasks are submitted, with the environment of that moment; each imports ``preload`` first."""
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_started, initargs=(preload,))

    def map_unordered(self, fn, units):
        if not units:
            return
        workers = self.workers
        if not self._spawns or (not self.env and len(units) <= 1):
            for unit in units:
                yield unit, _run_here(fn, unit)
            return
        pool_in_use = contextlib.nullcontext(self._pool) if self._pool else self._new_pool(min(workers, len(units)), self.preload)
        with _environment(self.env), pool_in_use as pool:
            pending: dict[Future, Any] = {}
            queue = list(units)
            queue.reverse()
            keep = 1 if self.caller_works else 0  # a unit left in the queue for the caller
            while queue or pending:
                while len(queue) > keep and len(pending) < workers * 2:
                    unit = queue.pop()
                    pending[pool.submit(fn, unit)] = unit
                if self.caller_works and queue:
                    unit = queue.pop()
                    yield unit, _run_here(fn, unit)
                    done = [future for future in pending if future.done()]
                else:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    unit = pending.pop(future)
                    error = future.exception()
                    if error is not None and not isinstance(error, DolmaSqlError):
                        raise error
                    yield unit, error if error is not None else future.result()


def _no_op() -> None:
    """A task whose submission spawns a worker."""


def _run_here(fn: Callable[[U], Counters], unit: U) -> Counters | DolmaSqlError:
    try:
        return fn(unit)
    except DolmaSqlError as error:
        return error


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    """Set ``env`` while workers are spawned (they inherit it), then restore the parent's."""
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_units(
    fn: Callable[[U], Counters],
    units: Sequence[U],
    *,
    executor: Executor,
    label: str,
    quiet: bool = False,
    on_result: Callable[[U, Counters], None] | None = None,
) -> Counters:
    """Run every unit, show progress (files and documents/s), and sum the counters.

    A unit that fails with a user error does not stop the others (their outputs are
    complete and a rerun skips them); the first such error is raised at the end.
    ``on_result(unit, counters)`` runs in the calling process as each unit succeeds, so the
    caller can consume finished units while others are still running.
    """
    totals: Counters = {}
    errors: list[DolmaSqlError] = []
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[documents]:,.0f} docs · {task.fields[rate]:,.0f} docs/s"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet or not units,
        transient=False,
    )
    with progress:
        task = progress.add_task(label, total=len(units), documents=0, rate=0)
        for unit, result in executor.map_unordered(fn, units):
            if isinstance(result, BaseException):
                errors.append(result)
            else:
                for key, value in result.items():
                    totals[key] = totals.get(key, 0) + value
                if on_result is not None:
                    on_result(unit, result)
            elapsed = progress.tasks[0].elapsed or 1e-9
            documents = totals.get("documents", 0)
            progress.update(task, advance=1, documents=documents, rate=documents / elapsed)
    if errors:
        if len(errors) > 1:
            console.print(f"[red]{len(errors)} units failed; the first error follows. Finished units are kept, rerun to resume.")
        raise errors[0]
    return totals


def default_processes() -> int:
    return max(1, os.cpu_count() or 1)
