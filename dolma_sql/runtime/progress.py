"""Progress of a run: units, documents and bytes, with an ETA from bytes done over total bytes.

Readers call :func:`advance` as they read, wherever they run; in a worker process the counts go
to the caller in a report every fraction of a second (the executor relays them), so a single
large file shows progress while it runs, not only when it is finished.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    console: Console

REPORT_SECONDS = 0.5
"""How often a worker sends what it has read to the caller."""

_display: RunProgress | None = None
_sink: Callable[[dict], None] | None = None
_pending = {"bytes_read": 0, "documents": 0}
_last_report = 0.0


def advance(*, bytes_read: int = 0, documents: int = 0) -> None:
    """Count what was just read toward the run's progress (a no-op outside a run)."""
    if _display is not None:
        _display.advance(bytes_read, documents)
    elif _sink is not None:
        _pending["bytes_read"] += bytes_read
        _pending["documents"] += documents
        if time.monotonic() - _last_report >= REPORT_SECONDS:
            flush()


def flush() -> None:
    """Send what this worker has counted but not yet reported (at the end of each unit)."""
    global _last_report
    if _sink is not None and any(_pending.values()):
        _last_report = time.monotonic()
        _sink(dict(_pending))
        _pending.update(bytes_read=0, documents=0)


def report_to(sink: Callable[[dict], None]) -> None:
    """Send this (worker) process's counts to ``sink``, which carries them to the caller."""
    global _sink
    _sink = sink


def __getattr__(name: str) -> Any:
    """``console``: the commands' one console, on standard error."""
    if name != "console":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _console()


def warn(message: str) -> None:
    """A warning of any command, on the console (``warning: …``, one line however long). The message is
    written as it is: the paths and globs in it (``part-[0-9].gz``) are no markup."""
    from rich.markup import escape

    _console().print(f"[yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True)


def new_console(console_class: type[Console] | None = None, **options: Any) -> Console:
    """A rich console that shows text as it is written: no emoji codes (``file:100:`` or a value ``:smile:`` stays as it
    is). Every console of the commands is made here."""
    from rich.console import Console

    return (console_class or Console)(emoji=False, **options)


@cache
def _console() -> Console:
    """Made when first used: a worker process, which only counts, never imports rich."""
    return new_console(stderr=True)


class RunProgress:
    """The one progress display of every command (disabled when quiet or when there is nothing to do)."""

    def __init__(self, label: str, *, units: int, total_bytes: int, quiet: bool) -> None:
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TextColumn("{task.fields[units]}"),
            TextColumn("{task.fields[documents]:,.0f} docs · {task.fields[rate]:,.0f} docs/s"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=_console(),
            disable=quiet or not units,
            transient=False,
        )
        self._units = units
        self._units_done = 0
        self._units_failed = 0
        self._streamed_bytes = 0
        self._finished_bytes = 0
        self._streamed_documents = 0
        self._finished_documents = 0.0
        self._task = self._progress.add_task(label, total=max(total_bytes, 1), units=f"0/{units} units", documents=0, rate=0)

    def advance(self, bytes_read: int, documents: int) -> None:
        self._streamed_bytes += bytes_read
        self._streamed_documents += documents
        self._refresh()

    @property
    def streamed_bytes(self) -> int:
        """Bytes that readers reported while units ran (wherever they ran)."""
        return self._streamed_bytes

    def unit_done(self, size: int, counters: dict[str, float] | None) -> None:
        """A unit ended (``counters`` is None when it failed): all of its bytes, and its documents, count; a failed
        unit is counted apart from the finished ones, since the rerun does it again."""
        if counters is None:
            self._units_failed += 1
        else:
            self._units_done += 1
        self._finished_bytes += size
        self._finished_documents += (counters or {}).get("documents", 0)
        self._refresh()

    def _refresh(self) -> None:
        """Streamed counts run ahead of finished units; finished units cover readers that do not stream counts."""
        elapsed = self._progress.tasks[0].elapsed or 1e-9
        documents = max(self._streamed_documents, self._finished_documents)
        self._progress.update(
            self._task,
            completed=max(self._streamed_bytes, self._finished_bytes),
            units=self.units_text,
            documents=documents,
            rate=documents / elapsed,
        )

    @property
    def units_text(self) -> str:
        """``12/20 units``, and how many failed if any did."""
        failed = f", [red]{self._units_failed} failed[/]" if self._units_failed else ""
        return f"{self._units_done}/{self._units} units{failed}"

    def __enter__(self) -> RunProgress:
        global _display
        self._progress.__enter__()
        _display = self
        return self

    def __exit__(self, *exc_info: Any) -> None:
        global _display
        _display = None
        self._progress.__exit__(*exc_info)
