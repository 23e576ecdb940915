"""One PNG per attribute: its scores and span lengths, drawn to be read at a glance.

Each panel shows the share of spans per bin, with the median and the 10th and 90th percentiles
marked. A measure of a few exact values is a labelled bar per value (a score that is always 1.0
is one bar labelled 1, not a wide block); long-tailed values get log-spaced bins on a log axis
(``scale``). When several attributes have the very same span lengths (document-level attributes:
every span is a whole document), the length panel is drawn once, in the first of them, and the
others say so instead of repeating it. :func:`figures` decides all this; :func:`plot` draws it.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

import numpy as np

from dolma_sql import storage
from dolma_sql.analyzer.display import number
from dolma_sql.analyzer.distribution import Distribution, distribution_of
from dolma_sql.analyzer.histogram import DetailedSummary, Summary
from dolma_sql.storage import urls

PLOT_BINS = 50
"""Bins of a panel's histogram."""

LABELLED_VALUES = 12
"""Up to this many exact values are drawn as one labelled bar each."""

MARKS = ((0.1, "10%", ":"), (0.5, "median", "-"), (0.9, "90%", ":"))


@dataclass(frozen=True)
class Panel:
    """One measure's plot: ``bars`` (a bar per exact value at ``values``, labelled when few) or a histogram
    over ``edges``; ``shares`` are % of spans per bar or bin; ``hidden`` % are not on a log axis (0 or less)."""

    measure: str
    summary: Summary
    distribution: Distribution
    scale: str
    shares: np.ndarray
    values: np.ndarray | None = None
    labelled: bool = False
    edges: np.ndarray | None = None
    hidden: float = 0.0
    shared_with: int = 0  # how many more attributes have these very span lengths


@dataclass(frozen=True)
class Figure:
    attribute: str
    panels: list[Panel]
    lengths_in: str | None = None  # the attribute whose figure shows these span lengths


def by_attribute(summaries: list[Summary]) -> dict[str, dict[str, Summary]]:
    """The summaries of each attribute by measure (score, length), attributes in first-seen order."""
    grouped: dict[str, dict[str, Summary]] = {}
    for summary in summaries:
        attribute, measure = summary.name.rsplit("/", 1)
        grouped.setdefault(attribute, {})[measure] = summary
    return grouped


def plot_urls(summaries: list[Summary], folder: str) -> list[str]:
    """The PNG that :func:`plot` writes for each attribute, in order."""
    return [urls.join(folder, file_name(attribute)) for attribute in by_attribute(summaries)]


def file_name(attribute: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", attribute) + ".png"


def figures(summaries: list[Summary], scale: str = "auto") -> list[Figure]:
    """What each attribute's PNG shows; ``scale`` is ``auto`` (log where the values are long-tailed), ``linear`` or ``log``."""
    grouped = by_attribute(summaries)
    shared = _shared_lengths(grouped)
    result = []
    for attribute, measures in grouped.items():
        first = shared.get(attribute, attribute)
        sharing = sum(1 for other, owner in shared.items() if owner == attribute and other != attribute)
        panels = [
            panel(measure, summary, scale, shared_with=sharing if measure == "length" else 0)
            for measure, summary in measures.items()
            if measure != "length" or first == attribute
        ]
        result.append(Figure(attribute, panels, first if first != attribute else None))
    return result


def panel(measure: str, summary: Summary, scale: str = "auto", *, shared_with: int = 0) -> Panel:
    """How one measure is drawn: labelled bars for a few exact values, else a histogram on the chosen scale."""
    distribution = distribution_of(summary)
    total = distribution.total
    if distribution.exact and len(distribution.counts) <= LABELLED_VALUES:
        return Panel(measure, summary, distribution, "linear", 100 * distribution.counts / total, distribution.lower, True, shared_with=shared_with)
    chosen = distribution.scale(scale)
    edges = _edges(distribution, chosen)
    hidden = 100 * distribution.not_positive() / total if chosen == "log" else 0.0
    if distribution.exact:  # a few dozen exact values: a bar each, where it is
        shown = distribution.lower > 0 if chosen == "log" else np.ones(len(distribution.lower), dtype=bool)
        return Panel(measure, summary, distribution, chosen, 100 * distribution.counts[shown] / total, distribution.lower[shown], hidden=hidden, shared_with=shared_with)
    return Panel(measure, summary, distribution, chosen, 100 * distribution.binned(edges) / total, edges=edges, hidden=hidden, shared_with=shared_with)


def _edges(distribution: Distribution, scale: str) -> np.ndarray:
    """About ``PLOT_BINS`` bins over the values, equal on the scale; whole numbers get bins of whole
    numbers (bins that hold one or two integers in turn would draw a comb)."""
    low, high = distribution.minimum, distribution.maximum
    if scale == "log":
        positive = distribution.lower[distribution.lower > 0]
        low = positive[0] if len(positive) else high
        edges = np.geomspace(low, high, PLOT_BINS + 1)
        return np.unique(np.append(np.ceil(edges[:-1]), np.floor(high) + 1)) if distribution.integral() else edges
    if distribution.integral():
        width = max(1.0, np.ceil((high - low + 1) / PLOT_BINS))
        return np.arange(low, high + width + 1, width)[: int(np.ceil((high - low + 1) / width)) + 1]
    return np.linspace(low, high, PLOT_BINS + 1)


def _shared_lengths(grouped: dict[str, dict[str, Summary]]) -> dict[str, str]:
    """For each attribute whose span lengths are exactly another's, the first attribute with those lengths."""
    first_with: dict[tuple, str] = {}
    owners: dict[str, str] = {}
    for attribute, measures in grouped.items():
        length = measures.get("length")
        if isinstance(length, DetailedSummary):
            detail = length.detail
            owners[attribute] = first_with.setdefault((tuple(detail.keys), tuple(detail.counts), detail.minimum, detail.maximum), attribute)
    sharing = {first: sum(1 for owner in owners.values() if owner == first) for first in set(owners.values())}
    return {attribute: first for attribute, first in owners.items() if sharing[first] > 1}


# ------------------------------------------------------------------------------ drawing
def plot(summaries: list[Summary], folder: str, *, scale: str = "auto", staging: str | None = None) -> None:
    """One PNG per attribute in ``folder`` (see :func:`figures`)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    for figure_spec, url in zip(figures(summaries, scale), plot_urls(summaries, folder)):
        count = len(figure_spec.panels)
        figure, axes = pyplot.subplots(1, count, figsize=(6.4 * count, 4.2), squeeze=False)
        for axis, spec in zip(axes[0], figure_spec.panels):
            _draw(axis, spec)
        figure.suptitle(figure_spec.attribute, fontweight="bold")
        bottom = 0.0
        if figure_spec.lengths_in:
            note = textwrap.fill(f"span lengths: the same as in {file_name(figure_spec.lengths_in)}", width=90 * count, break_long_words=True)
            figure.text(0.5, 0.01, note, ha="center", va="bottom", fontsize=8, color="dimgray")
            bottom = 0.035 * (note.count("\n") + 1)
        figure.tight_layout(rect=(0, bottom, 1, 1))
        with storage.output(url, codec="", staging=staging) as writer:
            figure.savefig(writer, format="png", dpi=100)
        pyplot.close(figure)


def _draw(axis, spec: Panel) -> None:
    summary, distribution = spec.summary, spec.distribution
    mean = summary.sum / summary.total if summary.total else float("nan")
    title = f"{spec.measure}: {summary.total:,} spans, mean {number(mean)}"
    if spec.shared_with:
        title += f"\nthe same in {spec.shared_with} more attribute{'s' if spec.shared_with > 1 else ''}"
    axis.set_title(title, fontsize=10)
    axis.set_ylabel("% of spans")
    axis.grid(axis="y", alpha=0.3)
    if spec.labelled:
        _labelled_bars(axis, spec)
        return
    if spec.scale == "log":
        axis.set_xscale("log")
    if spec.edges is not None:
        axis.stairs(spec.shares, spec.edges, fill=True, color="tab:blue", alpha=0.85)
    else:
        _bars_in_place(axis, spec)
    for share, label, style in MARKS:
        value = float(distribution.quantiles([share])[0])
        if spec.scale != "log" or value > 0:
            axis.axvline(value, color="tab:red", linestyle=style, linewidth=1.2, label=f"{label} {number(value)}")
    axis.set_ylim(0, 1.25 * max(float(np.max(spec.shares, initial=0)), 1e-9))
    axis.legend(loc="upper center", ncol=3, fontsize=8, frameon=False)
    axis.set_xlabel(f"{spec.measure} ({spec.scale} scale)")
    if spec.hidden:
        what = "0" if distribution.minimum == 0 else "0 or less"
        axis.text(0.99, 0.70, f"{spec.hidden:.1f}% are {what}\n(not on a log axis)", transform=axis.transAxes, ha="right", va="top", fontsize=8, color="dimgray")


def _bars_in_place(axis, spec: Panel) -> None:
    """A bar per exact value at its place on the axis, as wide as the closest two allow."""
    values = spec.values
    if spec.scale == "log":
        gaps = np.diff(np.log(values))
        half = 0.4 * (gaps.min() if len(gaps) else 1.0)
        axis.bar(values * np.exp(-half), spec.shares, width=values * (np.exp(half) - np.exp(-half)), align="edge", color="tab:blue")
    else:
        gaps = np.diff(values)
        axis.bar(values, spec.shares, width=0.8 * (gaps.min() if len(gaps) else 1.0), color="tab:blue")


def _labelled_bars(axis, spec: Panel) -> None:
    """One bar per value, evenly spaced and labelled with the value, its share written on it."""
    positions = np.arange(len(spec.values))
    axis.bar(positions, spec.shares, width=0.6, color="tab:blue")
    axis.set_xticks(positions, [number(value) for value in spec.values])
    axis.set_xlim(-0.8, len(positions) - 0.2)
    axis.set_ylim(0, 112)
    for position, share in zip(positions, spec.shares):
        axis.text(position, share + 1.5, f"{share:.1f}%", ha="center", va="bottom", fontsize=8)
    if len(positions) == 1:
        axis.set_xlabel(f"every span's {spec.measure} is {number(spec.values[0])}")
    else:
        axis.set_xlabel(f"{spec.measure} ({len(positions)} values)")
