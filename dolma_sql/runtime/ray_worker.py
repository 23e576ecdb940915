"""What runs in a Ray worker: a unit's task, the worker's setup once per run, and its progress reports.

The driver side (:mod:`.ray`) submits these; nothing here starts or joins a cluster.
"""

from __future__ import annotations

import importlib
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from dolma_sql.errors import ConfigError, DolmaSqlError, install_hint
from dolma_sql.runtime import progress
from dolma_sql.runtime.executor import Counters, U
from dolma_sql.runtime.transient import is_transient
from dolma_sql.runtime.tuning import cyclic_gc_paused, keep_freed_memory
from dolma_sql.storage.remote import StoreFailure


def ray_module() -> Any:
    """Ray, or a clear error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError("the ray executor needs Ray, which is not installed", path="executor.kind", hint=install_hint("ray")) from None
    return ray


TASK_RETRIES = 3
"""Attempts after the first, for a lost worker or node and for a transient error."""

RETRY_PAUSE_SECONDS = 1.0
"""How long a task that failed with a transient error waits before Ray runs it again."""

WORKER_SETTINGS = "the environment `ray start` had on that node, its ~/.aws, its instance role"
"""Where a Ray worker's credentials and endpoint come from (the driver sends none)."""

Outcome = tuple["Counters | DolmaSqlError | Transient", dict | None]
"""What a task returns: the unit's counters or user error (or a transient failure), and the progress its worker had
not reported yet."""


@dataclass(frozen=True)
class Transient:
    """A task's outcome when its unit failed with a transient error: the driver runs the unit again (Ray's own retry
    of a task that raised would print the worker's traceback at the driver); ``error`` is what to report once the
    attempts are used up."""

    error: DolmaSqlError


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker process sets up once per run, before it imports the units' modules: the process
    settings, the working folder, the progress relay, the modules to preload."""

    preload: tuple[str, ...]
    relay: str
    cwd: str
    environment: tuple[tuple[str, str], ...]


def task_of(fn: Callable[[U], Counters], setup: WorkerSetup) -> Callable[[U], Outcome]:
    """The task's function with ``fn`` and ``setup`` inside, so that Ray sends them once, not with every
    unit; ``fn`` pickled, so that a worker sets itself up before it imports ``fn``'s module."""
    pickled = ray_module().cloudpickle.dumps(fn)

    def run_unit(unit: U) -> Outcome:
        return _run_task(pickled, setup, unit)

    run_unit.__name__ = run_unit.__qualname__ = f"dolma_sql:{getattr(fn, '__qualname__', 'unit')}"
    return run_unit


def _run_task(pickled: bytes, setup: WorkerSetup, unit: U) -> Outcome:
    """One unit in a Ray worker: a user error is the task's value, a transient error asks the driver for a retry."""
    reports = _set_up_worker(setup)
    progress.report_to(reports.send)  # this run's relay: the worker may have served other executors' runs
    fn = _unpickled(pickled)
    try:
        with cyclic_gc_paused():
            outcome = fn(unit)
    except Exception as error:
        if isinstance(error, StoreFailure):
            error.hint = f"{error.hint}; this ran on a Ray worker, which reaches the store with its node's settings: {WORKER_SETTINGS}"
        if is_transient(error):
            time.sleep(RETRY_PAUSE_SECONDS)
            return Transient(_as_user_error(error, unit)), None
        if not isinstance(error, DolmaSqlError):
            raise
        outcome = error
    return outcome, reports.settle()


@lru_cache(maxsize=8)
def _unpickled(pickled: bytes) -> Callable:
    return pickle.loads(pickled)


def _as_user_error(error: Exception, unit: Any) -> DolmaSqlError:
    if isinstance(error, DolmaSqlError):
        return error
    return DolmaSqlError(
        f"{type(error).__name__}: {error} (the same after {TASK_RETRIES} retries)",
        path=getattr(unit, "key", None) or str(unit),
        hint="the storage or the network failed; finished units are kept, rerun to resume",
    )


def warm_up_worker(setup: WorkerSetup) -> None:
    """A warm-up task: the worker's setup, ahead of the units."""
    try:
        _set_up_worker(setup)
    except Exception:  # the units that need the setup report it
        pass


@lru_cache(maxsize=8)
def _set_up_worker(setup: WorkerSetup) -> _Reports:
    """Once per worker process and run: the process settings, the driver's working folder, tuning, the preloads."""
    os.environ.update(setup.environment)
    if os.path.isdir(setup.cwd):
        os.chdir(setup.cwd)
    keep_freed_memory()
    reports = _Reports(setup.relay)
    for module in setup.preload:
        importlib.import_module(module)
    return reports


class _Reports:
    """A worker's progress: sent to the relay, once the driver has started it, without waiting while a unit
    runs (at most every :data:`~.progress.REPORT_SECONDS`); what is not sent is returned with the unit's outcome."""

    def __init__(self, relay_name: str) -> None:
        self.relay_name = relay_name
        self.relay: Any = None
        self.sent: Any = None
        self.ending = False
        self.unreported: dict | None = None

    def send(self, counts: dict) -> None:
        if self.unreported:
            counts = {key: counts.get(key, 0) + self.unreported.get(key, 0) for key in counts.keys() | self.unreported.keys()}
            self.unreported = None
        if not self.ending and self._relay() is not None:
            self.sent = self.relay.add.remote(counts)
        else:
            self.unreported = counts

    def _relay(self) -> Any:
        """The run's progress relay, if the driver has started it (looked up at most once a report)."""
        if self.relay is None:
            try:
                self.relay = ray_module().get_actor(self.relay_name)
            except ValueError:
                pass
        return self.relay

    def settle(self) -> dict | None:
        """The counts not yet sent; those sent during the unit have reached the relay (it runs one worker's
        calls in order), so the driver, which takes the relay's reports after the outcome, has them all."""
        self.ending = True
        try:
            progress.flush()
        finally:
            self.ending = False
        if self.sent is not None:
            ray_module().get(self.sent)
            self.sent = None
        unreported, self.unreported = self.unreported, None
        return unreported


class ProgressRelay:
    """Collects workers' progress reports until the driver takes them."""

    def __init__(self) -> None:
        self.reports: list[dict] = []

    def add(self, counts: dict) -> None:
        self.reports.append(counts)

    def take(self) -> list[dict]:
        reports, self.reports = self.reports, []
        return reports
