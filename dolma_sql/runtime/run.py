"""Running a command's units: skip what the ledger has, run the rest, record, show progress, sum counters."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from dolma_sql.errors import DolmaSqlError
from dolma_sql.runtime.executor import Counters, Executor, U
from dolma_sql.runtime.ledger import Ledger
from dolma_sql.runtime import progress

SKIPPED = "units_skipped"
"""The counter of units the ledger had finished before this run."""


def run_units(
    fn: Callable[[U], Counters],
    units: Sequence[U],
    *,
    executor: Executor,
    label: str,
    ledger: Ledger | None = None,
    redo: bool = False,
    quiet: bool = False,
    on_result: Callable[[U, Counters], None] | None = None,
) -> Counters:
    """Run every unit that the ledger does not have (all of them with ``redo``) and sum their counters.

    A unit is any picklable object; with a ledger it has a ``key`` (its main output's URL) and may have
    ``inputs`` (the URLs of the files it reads: a unit whose inputs changed since its record is done again),
    and a ``size`` (bytes of input) makes the progress bar and its ETA count bytes. A finished unit is
    recorded in the ledger as it finishes, so a run that stops resumes where it stopped. A unit
    that fails with a user error does not stop the others; the first such error is raised at the
    end. ``on_result(unit, counters)`` runs in the calling process as each unit succeeds. The run holds
    the ledger's run locks (:meth:`Ledger.holding`) until it ends: a second run on these outputs stops
    with an error naming this one.
    """
    with ledger.holding(unit.key for unit in units) if ledger is not None else contextlib.nullcontext():
        if ledger is not None:
            ledger.track_inputs({unit.key: unit.inputs for unit in units if getattr(unit, "inputs", None)})
        todo = list(units) if ledger is None else ledger.to_do(units, redo=redo)
        totals: Counters = {SKIPPED: len(units) - len(todo)} if len(todo) < len(units) else {}
        errors: list[DolmaSqlError] = []
        display = progress.RunProgress(label, units=len(todo), total_bytes=sum(_size(unit) for unit in todo), quiet=quiet)
        finished = len(units) - len(todo)
        try:
            with display:
                for unit, result in executor.map_unordered(fn, todo):
                    if isinstance(result, BaseException):
                        errors.append(result)
                        display.unit_done(_size(unit), None)
                        continue
                    if ledger is not None:
                        ledger.record(unit.key, result)
                        finished += 1
                    for key, value in result.items():
                        totals[key] = totals.get(key, 0) + value
                    if on_result is not None:
                        on_result(unit, result)
                    display.unit_done(_size(unit), result)
        except (KeyboardInterrupt, RuntimeError) as error:
            if not _interrupted(error):
                raise
            kept = f": {finished} of {len(units)} units finished and are kept, {ledger.resume} to resume" if ledger is not None else ""
            progress.console.print(f"[yellow]interrupted[/]{kept}", highlight=False, soft_wrap=True)
            raise KeyboardInterrupt from None  # the CLI ends with status 130, as for any Ctrl-C
    if errors:
        if len(errors) > 1:
            resume = f" Finished units are kept, {ledger.resume} to resume." if ledger is not None else ""
            progress.console.print(f"[red]{len(errors)} units failed; the first error follows.{resume}")
        raise errors[0]
    return totals


def _interrupted(error: BaseException) -> bool:
    """Ctrl-C: Python's, or DuckDB's (a query running when it came stops with this ``RuntimeError``)."""
    return isinstance(error, KeyboardInterrupt) or (isinstance(error, RuntimeError) and str(error) == "Query interrupted")


def _size(unit: Any) -> int:
    return int(getattr(unit, "size", 0) or 0)
