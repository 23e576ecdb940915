"""The Ray executor: the same units as plain Ray tasks on a cluster.

One task per unit, with the unit (paths and small config objects) in and its counters out; no
document data goes through Ray's object store. At most ``max_in_flight`` tasks are submitted at a
time, so the driver holds what is in flight, not the whole plan. Ray retries a task whose worker
or node was lost, and a task that failed with a transient storage error; a user error is returned
as the task's value, so it is never retried and stops the run with its file and line as locally.
Interrupting the driver cancels the tasks in flight. Workers' progress reaches the driver through
a small actor that the driver polls.
"""

from __future__ import annotations

import importlib
import os
import time
import uuid
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from dolma_sql.errors import ConfigError, DolmaSqlError
from dolma_sql.runtime import progress
from dolma_sql.runtime.executor import Counters, Executor, U, run_catching_user_errors
from dolma_sql.runtime.tuning import cyclic_gc_paused, keep_freed_memory

TRANSIENT_ERRORS = (ConnectionError, TimeoutError)
"""Failures of a task that a retry may cure (a storage server that was briefly unreachable)."""

TASK_RETRIES = 3
POLL_SECONDS = 0.25
TASKS_PER_CPU = 4
MIN_IN_FLIGHT = 64
"""Tasks in flight: enough to keep every CPU busy while the driver collects results (short units are
latency-bound), few enough that the driver's memory does not grow with the plan."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("the ray executor needs Ray", path="executor.kind", hint='pip install "dolma-sql[ray]"') from None
    return ray


class RayExecutor(Executor):
    """Runs units as Ray tasks on the cluster at ``address`` (else ``RAY_ADDRESS``, else a Ray started on this machine)."""

    def __init__(self, address: str | None = None, *, max_in_flight: int | None = None) -> None:
        self.address = address or os.environ.get("RAY_ADDRESS")
        self.max_in_flight = max_in_flight
        self.preload: list[str] = []
        self._started_ray = False
        self._relay: Any = None
        self._relay_name = ""

    def prepare(self, module: str) -> None:
        if module not in self.preload:
            self.preload.append(module)

    def __enter__(self) -> RayExecutor:
        ray = _ray()
        if not ray.is_initialized():
            ray.init(address=self.address, log_to_driver=False, include_dashboard=False, configure_logging=False)
            self._started_ray = True
        return self

    def __exit__(self, *exc_info) -> None:
        if self._started_ray:
            _ray().shutdown()
            self._started_ray = False
        self._relay = None

    def _in_flight(self) -> int:
        if self.max_in_flight:
            return self.max_in_flight
        return max(MIN_IN_FLIGHT, TASKS_PER_CPU * int(_ray().cluster_resources().get("CPU", 1)))

    def map_unordered(self, fn: Callable[[U], Counters], units) -> Iterator[tuple[U, Counters | DolmaSqlError]]:
        if not units:
            return
        ray = _ray()
        entered = not ray.is_initialized()
        if entered:
            self.__enter__()
        try:
            yield from self._run(ray, fn, units)
        finally:
            if entered:
                self.__exit__(None, None, None)

    def _run(self, ray: Any, fn: Callable[[U], Counters], units) -> Iterator[tuple[U, Counters | DolmaSqlError]]:
        if self._relay is None:
            self._relay_name = f"dolma-sql-progress-{uuid.uuid4().hex}"
            self._relay = ray.remote(num_cpus=0)(_ProgressRelay).options(name=self._relay_name).remote()
        task = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=list(TRANSIENT_ERRORS))(_run_task)
        limit = self._in_flight()
        queue = iter(units)
        pending: dict[Any, Any] = {}
        relayed = time.monotonic()
        try:
            while True:
                for unit in queue:
                    pending[task.remote(fn, unit, tuple(self.preload), self._relay_name)] = unit
                    if len(pending) >= limit:
                        break
                if not pending:
                    break
                waiting = list(pending)
                done, _ = ray.wait(waiting, num_returns=1, timeout=POLL_SECONDS)
                if done:  # take every result that is ready, not one per wait
                    done, _ = ray.wait(waiting, num_returns=len(waiting), timeout=0)
                if time.monotonic() - relayed >= POLL_SECONDS:
                    self._relay_progress(ray)
                    relayed = time.monotonic()
                for ref, result in zip(done, ray.get(done)):
                    yield pending.pop(ref), result
            self._relay_progress(ray)
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise

    def _relay_progress(self, ray: Any) -> None:
        for counts in ray.get(self._relay.take.remote()):
            progress.advance(**counts)


class _ProgressRelay:
    """Collects workers' progress reports until the driver takes them."""

    def __init__(self) -> None:
        self.reports: list[dict] = []

    def add(self, counts: dict) -> None:
        self.reports.append(counts)

    def take(self) -> list[dict]:
        reports, self.reports = self.reports, []
        return reports


def _run_task(fn: Callable[[U], Counters], unit: U, preload: tuple[str, ...], relay_name: str) -> Counters | DolmaSqlError:
    """One unit in a Ray worker: tuned as the local pool's workers are, reporting progress to the relay.

    Progress goes out every few tenths of a second, not at the end of each unit: a finished unit's
    bytes are counted by the driver anyway, and a report per unit would double the calls to Ray.
    """
    _set_up_worker(preload, relay_name)
    with cyclic_gc_paused():
        return run_catching_user_errors(fn, unit)


@lru_cache(maxsize=8)
def _set_up_worker(preload: tuple[str, ...], relay_name: str) -> None:
    """Once per worker process and run: tuning, the progress relay, the preloads."""
    ray = _ray()
    keep_freed_memory()
    progress.report_to(ray.get_actor(relay_name).add.remote)
    for module in preload:
        importlib.import_module(module)
