"""The Ray executor: the same units as plain Ray tasks on a cluster.

One task per unit, with the unit (paths and small config objects) in and its counters out; no
document data goes through Ray's object store. At most ``max_in_flight`` tasks are submitted at a
time, so the driver holds what is in flight, not the whole plan. Ray retries a task whose worker
or node was lost; the driver submits again a unit that failed with a transient storage or network
error; a user error is returned as the task's value, so it is never retried and stops the run with
its file and line as locally. Interrupting the driver cancels the tasks in flight. Workers'
progress comes back with each unit's outcome; when units run long (no outcome for
:data:`RELAY_AFTER_SECONDS`), the driver starts a small actor that workers send their progress to
while a unit runs, and polls it.

Each run of a command is a new Ray job, whose worker processes start from scratch (Python, Ray, then
the command's modules) and end with it: the executor asks for them as soon as it is entered, with
one warm-up task per CPU of the cluster that imports the modules named by :meth:`RayExecutor.prepare`,
so that they start while the driver plans the run, not after.

Workers run in the driver's working directory when it exists on their node (relative paths and
``--tagger_modules file.py`` mean what they mean to the driver), with the process settings the
local pool gives its workers. They read object storage with the credentials of their own node
(the environment of ``ray start``, ``~/.aws``, an instance role): none are sent by the driver.
"""

from __future__ import annotations

import itertools
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from dolma_sql.errors import ConfigError, DolmaSqlError
from dolma_sql.runtime import progress
from dolma_sql.runtime.executor import Counters, Executor, U
from dolma_sql.runtime.ray_worker import TASK_RETRIES, Outcome, ProgressRelay, Transient, WorkerSetup, ray_module, task_of, warm_up_worker
from dolma_sql.runtime.tuning import RUNTIME_ENVIRONMENT, allocator_environment


POLL_SECONDS = 0.25
"""How long the driver waits for results before it shows the workers' progress again."""

TASKS_PER_CPU = 4

MIN_IN_FLIGHT = 64
"""Tasks in flight: enough to keep every CPU busy while the driver collects results (short units are
latency-bound), few enough that the driver's memory does not grow with the plan."""

CONNECT_SECONDS = 10.0
"""How long the driver waits for the cluster's address to answer before it says that nothing does."""

RELAY_AFTER_SECONDS = 10.0
"""How long the driver waits without any outcome before it starts the progress relay: short units report
their progress with their outcomes, and a run of them never pays for the relay's process."""

RESULTS_PER_WAIT = 16
"""Results the driver waits for at once (at most :data:`POLL_SECONDS`): one call to Ray per result
costs the driver more CPU than a short unit takes."""


class RayExecutor(Executor):
    """Runs units as Ray tasks on the cluster at ``address`` (else ``RAY_ADDRESS``, else a Ray started on this
    machine). ``allocator`` is preloaded into the workers as the local pool does (see :mod:`.tuning`)."""

    def __init__(
        self, address: str | None = None, *, allocator: str = "auto", max_in_flight: int | None = None, relay_after_seconds: float = RELAY_AFTER_SECONDS
    ) -> None:
        ray_module()  # a missing Ray is said before any work
        self.address = address or os.environ.get("RAY_ADDRESS")
        self.allocator = allocator
        self.max_in_flight = max_in_flight
        self.relay_after_seconds = relay_after_seconds
        self.preload: list[str] = []
        self._started_ray = False
        self._entered = False
        self._relay: Any = None
        self._relay_name = f"dolma-sql-progress-{uuid.uuid4().hex}"

    def prepare(self, module: str) -> None:
        if module not in self.preload:
            self.preload.append(module)
            if self._entered:
                self._warm_up(ray_module())

    def __enter__(self) -> RayExecutor:
        ray = ray_module()
        if not ray.is_initialized():
            self._connect(ray)
            self._started_ray = True
        self._entered = True
        if self.preload:
            self._warm_up(ray)
        return self

    def _connect(self, ray: Any) -> None:
        """Join the cluster at :attr:`address` (or start a Ray here without one); a cluster that does not answer, or
        refuses this driver, is one error naming the address, where Ray would retry for minutes or raise."""
        where = "executor.address" if self.address != os.environ.get("RAY_ADDRESS") else "RAY_ADDRESS"
        if self.address and not _answers(self.address):
            raise ConfigError(
                f"no Ray cluster answers at {self.address}",
                path=where,
                hint="start one there (ray start --head --port PORT) or fix the address; `ray status --address ADDRESS` checks it",
            )
        preloaded = allocator_environment(self.allocator)  # LD_PRELOAD takes a new process: Ray's runtime env
        try:
            ray.init(
                address=self.address,
                runtime_env={"env_vars": preloaded} if preloaded else None,
                log_to_driver=False,
                include_dashboard=False,
                configure_logging=False,
            )
        except ConnectionError as error:
            raise ConfigError(
                f"the Ray cluster at {self.address} refused this driver ({error})",
                path=where,
                hint="Ray 2.60 clusters ask for a token unless started with RAY_AUTH_MODE=disabled: give this driver the "
                "same RAY_AUTH_MODE (or the cluster's token) as `ray start` had",
            ) from None

    def __exit__(self, *exc_info) -> None:
        self._entered = False
        if self._relay is not None and not self._started_ray:  # a Ray the caller started outlives the run
            ray_module().kill(self._relay)
        self._relay = None
        self._relay_name = f"dolma-sql-progress-{uuid.uuid4().hex}"  # workers may still hold the killed one
        if self._started_ray:
            ray_module().shutdown()
            self._started_ray = False

    def map_unordered(self, fn: Callable[[U], Counters], units) -> Iterator[tuple[U, Counters | DolmaSqlError]]:
        if not units:
            return
        ray = ray_module()
        entered = not ray.is_initialized()
        if entered:
            self.__enter__()
        try:
            yield from self._run(ray, fn, units)
        finally:
            if entered:
                self.__exit__(None, None, None)

    def _setup(self) -> WorkerSetup:
        """What the workers set up for this executor's runs."""
        return WorkerSetup(tuple(self.preload), self._relay_name, os.getcwd(), tuple(sorted(worker_environment().items())))

    def _warm_up(self, ray: Any) -> None:
        """One task per CPU of the cluster that sets its worker up (imports included) and returns: the job's
        workers start now, while the driver plans, and the units find them ready. Their outcomes are not
        awaited (a failing import fails the units, which say so)."""
        warm = ray.remote(max_retries=0)(warm_up_worker)
        setup = self._setup()
        for _ in range(int(ray.cluster_resources().get("CPU", 1))):
            warm.remote(setup)

    def _start_relay(self, ray: Any) -> None:
        self._relay = ray.remote(num_cpus=0)(ProgressRelay).options(name=self._relay_name).remote()

    def _run(self, ray: Any, fn: Callable[[U], Counters], units) -> Iterator[tuple[U, Counters | DolmaSqlError]]:
        setup = self._setup()
        task = ray.remote(max_retries=TASK_RETRIES)(task_of(fn, setup))  # Ray retries a lost worker; the driver a transient error
        cpus = int(ray.cluster_resources().get("CPU", 1))
        count = len(units)  # tokens makes as many units as ``processes`` says, whatever the cluster's size
        self.say_once_if_short(count, cpus, lambda: f"{count} unit{'s' if count > 1 else ''} of work for a cluster of {cpus} CPUs: {cpus - count} of them stay idle")
        limit = self.max_in_flight or max(MIN_IN_FLIGHT, TASKS_PER_CPU * cpus)
        batch = max(1, min(RESULTS_PER_WAIT, limit // 4))  # a wait never holds back the refill of the queue
        queue = iter(units)
        pending: dict[Any, tuple[Any, int]] = {}  # a task's unit and its attempt
        relayed = last_outcome = time.monotonic()
        try:
            while True:
                for unit in itertools.islice(queue, limit - len(pending)):
                    pending[task.remote(unit)] = unit, 0
                if not pending:
                    break
                done, _ = ray.wait(list(pending), num_returns=min(len(pending), batch), timeout=POLL_SECONDS)
                now = time.monotonic()
                if done:
                    last_outcome = now
                elif self._relay is None and now - last_outcome >= self.relay_after_seconds:
                    self._start_relay(ray)
                if now - relayed >= POLL_SECONDS:
                    self._relay_progress(ray)
                    relayed = now
                finished = [pending.pop(ref) for ref in done]
                for (unit, attempt), (outcome, unreported) in zip(finished, _outcomes(ray, done, [unit for unit, _ in finished])):
                    if isinstance(outcome, Transient):
                        if attempt < TASK_RETRIES:  # its progress is left out: the next attempt reports its own
                            pending[task.remote(unit)] = unit, attempt + 1
                            continue
                        outcome = outcome.error
                    if unreported:
                        progress.advance(**unreported)
                    yield unit, outcome
            self._relay_progress(ray)
        except BaseException:  # Ctrl-C, a bug in a unit, or a caller that stopped listening
            _cancel_unfinished(ray, list(pending))
            raise

    def _relay_progress(self, ray: Any) -> None:
        if self._relay is not None:
            for counts in ray.get(self._relay.take.remote()):
                progress.advance(**counts)


def _answers(address: str) -> bool:
    """Whether something listens at a ``HOST:PORT`` address (True for what is not one: ``auto``, ``ray://…``)."""
    host, _, port = address.rpartition(":")
    if not host or "://" in address or not port.isdigit():
        return True
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except OSError:
        return False
    return True


def worker_environment() -> dict[str, str]:
    """The process settings of the local pool's workers (see :mod:`.tuning`), for Ray's workers: the
    driver's values of :data:`RUNTIME_ENVIRONMENT`, and one Polars thread per task's CPU."""
    environment = {key: os.environ.get(key, value) for key, value in RUNTIME_ENVIRONMENT.items()}
    environment["POLARS_MAX_THREADS"] = os.environ.get("POLARS_MAX_THREADS", "1")
    return environment


def _outcomes(ray: Any, done: list, units: list) -> list[Outcome]:
    """The outcomes of finished tasks (``units`` are theirs), in one call to Ray unless one of them failed."""
    try:
        return ray.get(done)
    except ray.exceptions.RayError:
        return [_outcome(ray, ref, unit) for ref, unit in zip(done, units)]


def _cancel_unfinished(ray: Any, refs: list) -> None:
    """Cancel the tasks that have not finished. A finished task is never cancelled: Ray aborts the driver
    (``Tried to complete task that was not pending``) when a task is cancelled just after its outcome
    arrived, before Ray has recorded it as complete. (A task that finishes during the cancel can still meet
    that race in Ray; it needs a run that is already stopping.)"""
    if refs:
        _, unfinished = ray.wait(refs, num_returns=len(refs), timeout=0, fetch_local=False)
        for ref in unfinished:
            ray.cancel(ref, force=True)


def _outcome(ray: Any, ref: Any, unit: Any) -> Outcome:
    """A finished task's outcome; a failure that outlived its retries is a user error naming the unit (the
    storage or the cluster failed, not dolma-sql); a bug in the unit is raised."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError:  # a bug in the unit
        raise
    except ray.exceptions.RayError as error:  # the worker or its node was lost on every attempt
        lost = DolmaSqlError(
            f"the Ray worker running this unit was lost {TASK_RETRIES + 1} times ({type(error).__name__})",
            path=getattr(unit, "key", None) or str(unit),
            hint="see the Ray logs of the cluster (memory, node failures); finished units are kept, rerun to resume",
        )
        return lost, None
