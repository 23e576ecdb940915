"""Summaries for people: tables on a terminal and one PNG histogram per attribute."""

from __future__ import annotations

import re

import numpy as np

from dolma_sql import storage
from dolma_sql.analyzer.histogram import Summary
from dolma_sql.storage import urls

PLOT_BINS = 50
"""Bars per plot: a summary's own bins can be tiny fixed buckets, unreadable when drawn to scale."""

PLOT_DISTINCT = 100
"""Up to this many distinct values are drawn as one bar each (equal-width bins would alias integers)."""


def display_rows(summary: Summary, rows: int = 10) -> list[tuple[str, float, int]]:
    """About ``rows`` ranges of roughly equal counts, as ``([lo, hi), share, count)``, for reading on a terminal."""
    counts = np.asarray(summary.counts, dtype=np.int64)
    edges = np.asarray(summary.bins, dtype=np.float64)
    grand = int(counts.sum())
    if grand == 0:
        return []
    cumulative = np.cumsum(counts)
    targets = np.arange(1, rows) * grand / rows
    cuts = np.unique(np.concatenate([np.searchsorted(cumulative, targets, side="left") + 1, [len(counts)]]))
    result, start = [], 0
    for cut in cuts:
        if cut <= start:
            continue
        count = int(counts[start:cut].sum())
        closing = "]" if cut == len(counts) else ")"
        result.append((f"[{_short(edges[start])}, {_short(edges[cut])}{closing}", count / grand, count))
        start = cut
    return result


def _short(value: float) -> str:
    return f"{value:.6g}"


def print_tables(summaries: list[Summary], console, show_total: bool = False) -> None:
    from rich.table import Table

    for summary in summaries:
        table = Table(title=summary.name, header_style="bold")
        table.add_column("value", style="cyan")
        table.add_column("dist", justify="right", style="magenta")
        table.add_column("count", justify="right", style="green")
        for label, share, count in display_rows(summary):
            table.add_row(label, f"{share:.4f}", f"{count:,}")
        if show_total:
            total_sum = f"{summary.sum:,}" if isinstance(summary.sum, int) else f"{summary.sum:.6g}"
            table.add_row(total_sum, "← sum/total →", f"{summary.total:,}")
        console.print(table)


def _by_attribute(summaries: list[Summary]) -> dict[str, dict[str, Summary]]:
    """The summaries of each attribute by measure (score, length), attributes in first-seen order."""
    grouped: dict[str, dict[str, Summary]] = {}
    for summary in summaries:
        attribute, measure = summary.name.rsplit("/", 1)
        grouped.setdefault(attribute, {})[measure] = summary
    return grouped


def plot_urls(summaries: list[Summary], folder: str) -> list[str]:
    """The PNG that :func:`plot` writes for each attribute, in order."""
    return [urls.join(folder, re.sub(r"[^A-Za-z0-9_.-]+", "_", attribute) + ".png") for attribute in _by_attribute(summaries)]


def plot(summaries: list[Summary], folder: str, *, staging: str | None = None) -> None:
    """One PNG per attribute in ``folder`` (score and length side by side)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    for (attribute, measures), url in zip(_by_attribute(summaries).items(), plot_urls(summaries, folder)):
        figure, axes = pyplot.subplots(1, len(measures), figsize=(6 * len(measures), 4), squeeze=False)
        for axis, (measure, summary) in zip(axes[0], measures.items()):
            values = np.asarray(summary.bins[: len(summary.counts)])
            if len(values) <= PLOT_DISTINCT:
                gaps = np.diff(values)
                axis.bar(values, summary.counts, width=0.8 * (gaps.min() if len(gaps) else 1.0))
            else:
                counts, edges = np.histogram(values, bins=PLOT_BINS, weights=summary.counts)
                axis.stairs(counts, edges, fill=True)
            axis.set_title(f"{measure} ({summary.total:,} spans)")
            axis.set_xlabel(measure)
            axis.set_ylabel("spans")
        figure.suptitle(attribute)
        figure.tight_layout()
        with storage.output(url, codec="", staging=staging) as writer:
            figure.savefig(writer, format="png")
        pyplot.close(figure)
