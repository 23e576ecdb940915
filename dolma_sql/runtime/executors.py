"""Building an executor from its config: the one place that knows every kind."""

from __future__ import annotations

from dolma_sql.errors import ConfigError
from dolma_sql.runtime.executor import Executor, SerialExecutor

KINDS = ("local", "serial", "ray")


def build_executor(kind: str = "local", *, processes: int = 1, allocator: str = "auto", address: str | None = None) -> Executor:
    """The executor a command runs its units on: ``local`` (a process pool on this machine), ``serial``
    (the calling process alone, for debugging) or ``ray`` (tasks on the Ray cluster at ``address``, else
    ``RAY_ADDRESS``; ``processes`` does not apply: the cluster's CPUs do)."""
    if kind == "local":
        from dolma_sql.runtime.local import LocalExecutor

        return LocalExecutor(processes, allocator=allocator)
    if kind == "serial":
        return SerialExecutor()
    if kind == "ray":
        from dolma_sql.runtime.ray import RayExecutor

        return RayExecutor(address, allocator=allocator)
    raise ConfigError(f"unknown executor {kind!r}", path="executor.kind", hint=f"use one of {', '.join(KINDS)}")


def executor_of(config) -> Executor:
    """The executor a command's config asks for: its ``executor`` section and ``processes`` (one process
    with ``debug``, as dolma does; the calling process alone with ``profile.enable``, which profiles it)."""
    if getattr(getattr(config, "profile", None), "enable", False):
        return SerialExecutor()
    settings = config.executor
    processes = 1 if getattr(config, "debug", False) else config.processes
    return build_executor(settings.kind, processes=processes, allocator=settings.allocator, address=settings.address)
