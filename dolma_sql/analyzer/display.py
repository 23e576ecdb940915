"""Summaries for people on a terminal or a pipe: one line per summary, and dolma's tables on request.

Printing comes after the report and plots are written, and a reader that leaves early (``| head``)
ends it quietly: the command still succeeds.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TextIO

import numpy as np

from dolma_sql.analyzer.distribution import distribution_of
from dolma_sql.analyzer.histogram import Summary

QUANTILES = ((0.1, "p10"), (0.5, "p50"), (0.9, "p90"), (0.99, "p99"))
"""The quantiles of a summary line, between its minimum and maximum."""


def number(value: float) -> str:
    """A value for people: four significant digits, thousands grouped."""
    if not np.isfinite(value):
        return str(value)
    if abs(value) >= 1000:
        return f"{value:,.0f}" if abs(value) < 1e9 else f"{value:.3g}"
    return f"{value:.4g}"


def summary_rows(summaries: list[Summary], show_total: bool = False) -> list[list[str]]:
    """A header and one row per summary: name, spans, (sum,) mean, min, quantiles, max."""
    header = ["name", "spans", *(["sum"] if show_total else []), "mean", "min", *(label for _, label in QUANTILES), "max"]
    rows = [header]
    for summary in summaries:
        distribution = distribution_of(summary)
        quantiles = distribution.quantiles([share for share, _ in QUANTILES])
        mean = summary.sum / summary.total if summary.total else float("nan")
        total = [number(summary.sum)] if show_total else []
        values = [distribution.minimum, *quantiles, distribution.maximum]
        rows.append([summary.name, f"{summary.total:,}", *total, number(mean), *(number(float(value)) for value in values)])
    return rows


def print_summary(summaries: list[Summary], out: TextIO, show_total: bool = False) -> None:
    """One aligned line per summary, never wrapped (the lines stay whole in a pipe or a file)."""
    rows = summary_rows(summaries, show_total)
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = [row[0].ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(row[1:], widths[1:]))]
        out.write("  ".join(cells).rstrip() + "\n")


def table_rows(summary: Summary, rows: int = 10) -> list[tuple[str, float, int]]:
    """About ``rows`` ranges of roughly equal counts, as ``("[lo, hi)", share, count)`` (dolma's tables)."""
    ranges = distribution_of(summary).equal_count_ranges(rows)
    grand = sum(count for _, _, count in ranges)
    result = []
    for index, (low, high, count) in enumerate(ranges):
        closing = "]" if index == len(ranges) - 1 else ")"
        label = number(low) if low == high else f"[{number(low)}, {number(high)}{closing}"
        result.append((label, count / grand, count))
    return result


def print_tables(summaries: list[Summary], console, show_total: bool = False) -> None:
    """dolma's tables: ten ranges of about equal counts per summary (and the sum and total with ``show_total``)."""
    from rich.table import Table

    for summary in summaries:
        table = Table(title=summary.name, header_style="bold", min_width=len(summary.name) + 4)
        table.add_column("value", style="cyan")
        table.add_column("dist", justify="right", style="magenta")
        table.add_column("count", justify="right", style="green")
        for label, share, count in table_rows(summary):
            table.add_row(label, f"{share:.4f}", f"{count:,}")
        if show_total:
            table.add_row(number(summary.sum), "← sum/total →", f"{summary.total:,}")
        console.print(table)


def stdout_console():
    """A rich console on standard output that leaves a closed pipe to :func:`until_the_reader_leaves`
    (rich's own answer is to exit with status 1)."""
    from rich.console import Console

    from dolma_sql.runtime.progress import new_console

    class StdoutConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return new_console(StdoutConsole)


@contextlib.contextmanager
def until_the_reader_leaves() -> Iterator[None]:
    """Print to standard output until the reader closes the pipe (``| head``); then stop quietly, successfully."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the interpreter's last flush at exit fails no more
        os.close(devnull)
