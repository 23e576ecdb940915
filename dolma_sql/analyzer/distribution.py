"""What a measure's :class:`~dolma_sql.analyzer.histogram.Detail` says: quantiles, equal-count ranges,
whether it is long-tailed, and its counts in the bins of a plot."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dolma_sql.analyzer.histogram import Detail, DetailedSummary, Summary, bucket_values, detail_of

LOG_DECADES = 2.0
"""Automatic log scale needs positive values spanning at least this many powers of ten..."""

LOG_MIDDLE_SHARE = 0.2
"""...and the middle 80% of the values (10th to 90th percentile) in less than this share of the range on a linear axis."""


@dataclass(frozen=True)
class Distribution:
    """A detail's buckets in value order: ``lower`` and ``upper`` bounds (within the exact extremes) and ``counts``."""

    lower: np.ndarray
    upper: np.ndarray
    counts: np.ndarray
    exact: bool
    minimum: float
    maximum: float

    @classmethod
    def of(cls, detail: Detail) -> Distribution:
        lower, upper = detail.buckets().values(), detail.upper_edges()
        order = np.argsort(lower, kind="stable")
        lower = np.clip(lower[order], detail.minimum, detail.maximum)
        upper = np.clip(upper[order], detail.minimum, detail.maximum)
        counts = np.asarray(detail.counts, dtype=np.int64)[order]
        return cls(lower, upper, counts, detail.exact, detail.minimum, detail.maximum)

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def quantiles(self, shares) -> np.ndarray:
        """The values below which each share of the values lies: an exact value, or read linearly inside a ~1% bucket."""
        shares = np.asarray(shares, dtype=np.float64)
        cumulative = np.cumsum(self.counts)
        targets = shares * cumulative[-1]
        index = np.minimum(np.searchsorted(cumulative, targets, side="left"), len(self.counts) - 1)
        if self.exact:
            result = self.lower[index]
        else:
            before = cumulative[index] - self.counts[index]
            inside = np.divide(targets - before, self.counts[index], out=np.zeros_like(targets), where=self.counts[index] > 0)
            result = self.lower[index] + np.clip(inside, 0, 1) * (self.upper[index] - self.lower[index])
        result = np.where(shares <= 0, self.minimum, result)
        return np.clip(np.where(shares >= 1, self.maximum, result), self.minimum, self.maximum)

    def equal_count_ranges(self, rows: int = 10) -> list[tuple[float, float, int]]:
        """About ``rows`` ranges ``(lo, hi, count)`` of roughly equal counts, cut between buckets so that
        counts are exact; one range per value when the values are exact and few."""
        if self.exact and len(self.counts) <= rows:
            return [(float(value), float(value), int(count)) for value, count in zip(self.lower, self.counts)]
        cumulative = np.cumsum(self.counts)
        targets = np.arange(1, rows) * cumulative[-1] / rows
        cuts = np.unique(np.concatenate([np.searchsorted(cumulative, targets, side="left") + 1, [len(self.counts)]]))
        ranges, start = [], 0
        for cut in cuts:
            if cut > start:
                high = self.lower[cut] if cut < len(self.counts) else self.maximum
                ranges.append((float(self.lower[start]), float(high), int(self.counts[start:cut].sum())))
                start = cut
        return ranges

    def long_tailed(self) -> bool:
        """Non-negative values over several powers of ten, most of them crowded at the low end of a linear axis."""
        positive = self.lower[self.counts > 0]
        positive = positive[positive > 0]
        if self.minimum < 0 or not len(positive) or self.maximum <= 0:
            return False
        if np.log10(self.maximum / positive[0]) < LOG_DECADES:
            return False
        p10, p90 = self.quantiles([0.1, 0.9])
        return bool(p90 - p10 < LOG_MIDDLE_SHARE * (self.maximum - self.minimum))

    def scale(self, wanted: str) -> str:
        """``linear`` or ``log``: as ``wanted``, or as the data asks for (``auto``); log only for positive values."""
        if wanted == "auto":
            return "log" if self.long_tailed() else "linear"
        if wanted == "log" and self.maximum <= 0:
            return "linear"
        return wanted

    def binned(self, edges: np.ndarray) -> np.ndarray:
        """Counts in the bins between ``edges``: an exact value falls into its bin, a ~1% bucket is spread
        over the bins it overlaps (over the whole numbers it holds, when the values are whole numbers), so
        that plot bins finer than a bucket do not alias."""
        if self.exact:
            index = np.clip(np.searchsorted(edges, self.lower, side="right") - 1, 0, len(edges) - 2)
            inside = (self.lower >= edges[0]) & (self.lower <= edges[-1])
            return np.bincount(index[inside], weights=self.counts[inside], minlength=len(edges) - 1)
        lower, upper = self.lower, self.upper
        if self.integral():  # [lower, upper) holds the whole numbers ceil(lower) .. ceil(upper) - 1
            lower = np.ceil(lower)
            upper = np.maximum(np.ceil(upper), lower + 1)
        width = upper - lower
        below = np.zeros(len(edges))
        for position, edge in enumerate(edges):  # the count of values below each edge
            share = np.divide(edge - lower, width, out=(edge > upper).astype(np.float64), where=width > 0)
            below[position] = float(np.sum(self.counts * np.clip(share, 0, 1)))
        below[-1] = float(self.counts[lower <= edges[-1]].sum())
        return np.diff(below)

    def integral(self) -> bool:
        """Whether the values look like whole numbers: the extremes are, and every bucket narrow enough to tell holds one."""
        narrow = (self.upper - self.lower) < 0.5
        lower, upper = self.lower[narrow], self.upper[narrow]
        holds_one = (np.ceil(lower) == lower) | (np.ceil(lower) < upper)
        return bool(float(self.minimum).is_integer() and float(self.maximum).is_integer() and np.all(holds_one))

    def not_positive(self) -> int:
        """How many values are zero or less (a log axis cannot show them)."""
        return int(self.counts[self.lower <= 0].sum())


def distribution_of(summary: Summary) -> Distribution:
    """The summary's detail; a summary without one (dolma's report line) has its bins read instead."""
    if isinstance(summary, DetailedSummary):
        return Distribution.of(summary.detail)
    values = summary.bins[: len(summary.counts)]
    return Distribution.of(detail_of(bucket_values(values, summary.counts), values[0], summary.bins[-1]))
