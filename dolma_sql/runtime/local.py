"""The local executor: a pool of worker processes on this machine (or the calling process alone)."""

from __future__ import annotations

import atexit
import contextlib
import importlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from dolma_sql.errors import DolmaSqlError, WorkerDiedError
from dolma_sql.runtime import progress
from dolma_sql.runtime.executor import Counters, Executor, U, run_catching_user_errors
from dolma_sql.runtime.tuning import (
    allocator_environment,
    cyclic_gc_paused,
    die_with_parent,
    exiting_without_cycle_collection,
    keep_freed_memory,
    release_freed_memory,
)

PROGRESS_POLL_SECONDS = 0.25
"""How often the caller, while it waits for workers, shows the progress they reported."""


class LocalExecutor(Executor):
    """In-process for one process (easy to debug), a spawn-based process pool otherwise.

    The calling process is one of the ``processes``: between collecting the pool's results it runs
    units itself, so one worker fewer is spawned (each re-imports the libraries the caller already
    has). An ``allocator`` other than glibc's (see :func:`~dolma_sql.runtime.tuning.allocator_environment`)
    is preloaded into the workers; the caller, which cannot preload it, then runs no units.
    Every unit runs with the cycle collector paused and glibc keeping freed memory. Workers
    ignore Ctrl-C, which a terminal sends to every process of the run: the caller stops them
    (:func:`_stop_workers`) when it is interrupted or stops collecting for any other reason. Workers
    start as units are handed out, so never more than there are units to share (a line on
    stderr says so when that is fewer than ``processes``), and import the modules named by
    :meth:`prepare` as they start; used as a context manager the pool serves every map until it
    is left.
    """

    def __init__(self, processes: int = 1, *, allocator: str = "auto") -> None:
        self.processes = max(1, processes)
        self.env = allocator_environment(allocator) if self.processes > 1 else {}
        if self.processes > 1:  # one process per core: Polars reads this when imported
            self.env.setdefault("POLARS_MAX_THREADS", str(max(1, (os.cpu_count() or 1) // self.processes)))
        self.caller_works = "LD_PRELOAD" not in self.env
        self.preload: list[str] = []
        self._entered = False
        self._pool: ProcessPoolExecutor | None = None
        self._reports: Any = None
        self._started: Any = None

    @property
    def workers(self) -> int:
        return self.processes - 1 if self.caller_works else self.processes

    def prepare(self, module: str) -> None:
        if module not in self.preload:
            self.preload.append(module)

    @property
    def workers_started(self) -> int:
        """How many worker processes this executor has started so far."""
        return self._started.value if self._started is not None else 0

    def __enter__(self) -> LocalExecutor:
        self._entered = True
        return self

    def __exit__(self, *exc_info) -> None:
        self._entered = False
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _new_pool(self, workers: int) -> ProcessPoolExecutor:
        """Workers spawn as tasks are submitted and find no idle worker (see :meth:`_submit`), up to
        ``workers``; each imports the preloads first."""
        context = multiprocessing.get_context("spawn")
        if self._reports is None:
            self._reports = context.SimpleQueue()
            self._started = context.Value("i", 0)
        return ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_worker_started, initargs=(tuple(self.preload), self._reports, self._started)
        )

    def _submit(self, pool: ProcessPoolExecutor, fn: Callable, *args: Any) -> Future:
        """Submit a task with the workers' environment set and Ctrl-C held, since a submission may spawn a
        worker, which inherits both (a blocked signal stays blocked in the new interpreter)."""
        with _environment(self.env), _interrupts_held():
            return pool.submit(fn, *args)

    def map_unordered(self, fn, units):
        if not units:
            return
        count = len(units)
        self.say_once_if_short(count, self.processes, lambda: (
            f"{count} unit{'s' if count > 1 else ''} of work for --processes {self.processes}: "
            f"running {'them' if count > 1 else 'it'} in {count} process{'es' if count > 1 else ''}, not {self.processes}"
        ))  # fmt: skip
        try:
            if not self.workers or (self.caller_works and len(units) <= 1):
                keep_freed_memory()
                for unit in units:
                    yield unit, _run_unit(fn, unit)
                return
            if self._entered and self._pool is None:  # kept for later maps, which may have more units
                self._pool = self._new_pool(self.workers)
            pool_in_use = contextlib.nullcontext(self._pool) if self._pool else self._new_pool(min(self.workers, len(units)))
            with pool_in_use as pool:
                yield from self._collect(pool, fn, list(units))
        finally:
            if self.caller_works:  # the next map's units may allocate through other libraries than these did
                release_freed_memory()

    def _collect(self, pool: ProcessPoolExecutor, fn: Callable[[U], Counters], queue: list) -> Iterator[tuple[Any, Counters | DolmaSqlError]]:
        """The outcomes of ``queue``'s units as they finish. If the caller stops collecting before the end
        (Ctrl-C, an error), the workers are stopped at once: their units would not be recorded anyway."""
        pending: dict[Future, Any] = {}
        queue.reverse()
        keep = 1 if self.caller_works else 0  # a unit left in the queue for the caller
        if self.caller_works:
            keep_freed_memory()
        try:
            while queue or pending:
                while len(queue) > keep and len(pending) < self.workers * 2:
                    unit = queue.pop()
                    pending[self._submit(pool, _run_unit, fn, unit)] = unit
                if self.caller_works and queue:
                    unit = queue.pop()
                    yield unit, _run_unit(fn, unit)
                    done = [future for future in pending if future.done()]
                else:
                    done, _ = wait(pending, timeout=PROGRESS_POLL_SECONDS, return_when=FIRST_COMPLETED)
                self._relay_progress()
                for future in done:
                    unit = pending.pop(future)
                    if isinstance(future.exception(), BrokenProcessPool):
                        pool.shutdown(wait=True)  # its other workers are gone too
                        self._forget(pool)
                        yield unit, _worker_died(unit, len(pending))
                        return  # the pool is gone with its other units; the ledger keeps the finished ones
                    yield unit, future.result()
            self._relay_progress()
        except BaseException:
            _stop_workers(pool)
            self._forget(pool)
            raise

    def _forget(self, pool: ProcessPoolExecutor) -> None:
        """A pool that is stopped or broken serves no later map: the next one starts a new pool."""
        if pool is self._pool:
            self._pool = None

    def _relay_progress(self) -> None:
        while self._reports is not None and not self._reports.empty():
            progress.advance(**self._reports.get())


def _run_unit(fn: Callable[[U], Counters], unit: U) -> Counters | DolmaSqlError:
    try:
        with cyclic_gc_paused():
            return run_catching_user_errors(fn, unit)
    finally:
        progress.flush()


def _worker_died(unit: Any, others: int) -> DolmaSqlError:
    """What the run reports when a worker process ends in the middle of its work (a signal, the kernel's
    out-of-memory killer): which of the units in flight it was running is not known."""
    beside = {0: "", 1: " (or the other unit in flight)"}.get(others, f" (or one of the {others} other units in flight)")
    return WorkerDiedError(
        f"a worker process ended abruptly while running this unit{beside}: it was killed, perhaps by the out-of-memory killer",
        path=getattr(unit, "key", None) or str(unit),
        hint="rerun the same command to resume (finished units are kept); if memory ran out, lower --processes",
    )


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool's workers mid-unit, as a kill would (what their units leave, the rerun removes), and the pool.

    Only this pool's processes: a program that calls dolma-sql may have children of its own. Python 3.11's pool
    names them only in ``_processes`` (3.14 adds ``terminate_workers``)."""
    for process in list((pool._processes or {}).values()):
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT blocked in this thread for the block: a process it starts inherits the mask and never sees
    Ctrl-C; here the signal waits until the block ends (or reaches another thread), so none is lost."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _worker_started(preload: tuple[str, ...], reports: Any, started: Any) -> None:
    """Every pool worker's initializer: counted, tuning, progress reports to the caller, the preloads."""
    die_with_parent()
    with started.get_lock():
        started.value += 1
    atexit.register(exiting_without_cycle_collection)
    keep_freed_memory()
    progress.report_to(reports.put)
    for module in preload:
        importlib.import_module(module)


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
