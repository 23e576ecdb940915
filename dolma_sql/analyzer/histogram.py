"""dolma's histograms: values counted into fixed buckets, folded into ``bins`` bins.

A bucket is the ``frexp`` mantissa floored to 1/100000 and the exponent (dolma's
``FixedBucketsValTracker(n=5)``); its count is exact, so buckets of many batches or files merge
without loss, and only the folding into ``bins`` loses detail.

Beside dolma's summary each measure keeps a :class:`Detail` for people (quantiles, plots): its
values in buckets of about 1% whatever ``bins`` is, so that a report folded into few equal-width
bins still shows where the values are.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import numpy as np

MANTISSA_STEPS = 100_000
"""Buckets per power of two (dolma's ``FixedBucketsValTracker(n=5)``)."""

DETAIL_STEPS = 100
"""A :class:`Detail` bucket is the mantissa floored to 1/100: 50 buckets per power of two, each about 1% wide."""

DETAIL_EXACT = 64
"""Up to this many distinct values, a :class:`Detail` keeps dolma's own buckets (five digits) instead."""

_EXPONENT_OFFSET = 4096
_MANTISSA_SPAN = 4 * MANTISSA_STEPS


class Detail(msgspec.Struct):
    """A measure's values for people: bucket ``keys`` (see :class:`Buckets`) and their ``counts``, exact
    (dolma's buckets, when there are at most ``DETAIL_EXACT``) or about 1% wide; and the exact extremes."""

    keys: list[int]
    counts: list[int]
    exact: bool
    minimum: float
    maximum: float

    def buckets(self) -> Buckets:
        return Buckets(np.asarray(self.keys, dtype=np.int64), np.asarray(self.counts, dtype=np.int64))

    def upper_edges(self) -> np.ndarray:
        """Where each bucket ends: its lower bound (:meth:`Buckets.values`) plus one step of its mantissa; zero's bucket holds only zero."""
        buckets = self.buckets()
        step = np.where(buckets.mantissa == 0, 0, 1 if self.exact else MANTISSA_STEPS // DETAIL_STEPS)
        return Buckets(buckets.key + step, buckets.count).values()


class Summary(msgspec.Struct):
    """One line of dolma's ``summaries.jsonl.gz``: a histogram (``bins`` are edges, or bucket values plus an upper edge)."""

    name: str
    counts: list[int]
    bins: list[float]
    total: int
    sum: int | float


class DetailedSummary(Summary):
    """A summary and its :class:`Detail`: a line of the per-file summaries, and what the display reads."""

    detail: Detail

    def report_line(self) -> Summary:
        """dolma's line, without the detail."""
        return Summary(self.name, self.counts, self.bins, self.total, self.sum)


@dataclass
class Buckets:
    """Fixed buckets as parallel arrays, sorted by ``key`` (exponent and mantissa step in one integer) with their counts."""

    key: np.ndarray
    count: np.ndarray

    @property
    def exponent(self) -> np.ndarray:
        return self.key // _MANTISSA_SPAN - _EXPONENT_OFFSET

    @property
    def mantissa(self) -> np.ndarray:
        return self.key % _MANTISSA_SPAN - 2 * MANTISSA_STEPS

    def values(self) -> np.ndarray:
        """The value each bucket stands for: ``mantissa / 100000 * 2**exponent`` (exactly as dolma computes it)."""
        return self.mantissa / MANTISSA_STEPS * np.ldexp(1.0, self.exponent)


def bucket_values(values: np.ndarray, counts: np.ndarray | None = None) -> Buckets:
    """Count values (each weighing ``counts``, default 1) into fixed buckets, like ``math.frexp`` in dolma."""
    mantissa, exponent = np.frexp(np.asarray(values, dtype=np.float64))
    steps = np.floor(mantissa * MANTISSA_STEPS).astype(np.int64)
    key = (exponent.astype(np.int64) + _EXPONENT_OFFSET) * _MANTISSA_SPAN + (steps + 2 * MANTISSA_STEPS)
    if counts is None:
        return _runs(np.sort(key), None)
    order = np.argsort(key, kind="stable")
    return _runs(key[order], np.asarray(counts, dtype=np.int64)[order])


def detail_of(buckets: Buckets, minimum: float, maximum: float) -> Detail:
    """``buckets`` as they are when they are few, else coarsened to ``DETAIL_STEPS`` per unit of mantissa."""
    exact = len(buckets.key) <= DETAIL_EXACT
    kept = buckets if exact else _coarsened(buckets)
    return Detail(kept.key.tolist(), kept.count.tolist(), exact, float(minimum), float(maximum))


def merge_details(details: list[Detail]) -> Detail:
    """One detail of several: the detail of all their values together, whatever their order."""
    merged = merge([detail.buckets() for detail in details])
    exact = all(detail.exact for detail in details) and len(merged.key) <= DETAIL_EXACT
    kept = merged if exact else _coarsened(merged)
    return Detail(kept.key.tolist(), kept.count.tolist(), exact, min(d.minimum for d in details), max(d.maximum for d in details))


def _coarsened(buckets: Buckets) -> Buckets:
    """The mantissa step floored to a multiple of ``MANTISSA_STEPS // DETAIL_STEPS`` (a no-op on coarse buckets)."""
    step = MANTISSA_STEPS // DETAIL_STEPS
    return _runs(buckets.key - buckets.mantissa % step, buckets.count)


def merge(buckets: list[Buckets]) -> Buckets:
    """Sum the counts of equal buckets; buckets with a zero count are kept (dolma keeps them too)."""
    key = np.concatenate([b.key for b in buckets])
    order = np.argsort(key, kind="stable")  # Timsort: merging sorted runs takes linear time
    return _runs(key[order], np.concatenate([b.count for b in buckets])[order])


def _runs(key: np.ndarray, weights: np.ndarray | None) -> Buckets:
    """The distinct buckets of sorted ``key`` with the sum of their ``weights`` (each weighing 1 without)."""
    if not len(key):
        return Buckets(key, np.zeros(0, dtype=np.int64))
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    count = np.diff(np.append(starts, len(key))) if weights is None else np.add.reduceat(weights, starts)
    return Buckets(key[starts], count)


def fold(buckets: Buckets, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, edges)``: the buckets as they are when there are at most ``bins`` (edges are the bucket
    values plus the last bucket's upper bound), else ``bins`` equal-width bins over the bucket values."""
    values = buckets.values()
    order = np.argsort(values, kind="stable")
    values, counts = values[order], buckets.count[order]
    if len(values) <= bins:
        return counts, np.append(values, upper_edge(values[-1]))
    counts, edges = np.histogram(values, bins=bins, weights=counts)
    return counts.astype(np.int64), edges


def upper_edge(value: float) -> float:
    """The upper bound of ``value``'s bucket."""
    mantissa, exponent = np.frexp(value)
    return float((np.floor(mantissa * MANTISSA_STEPS) + 1) / MANTISSA_STEPS * np.ldexp(1.0, exponent))


class Tracker:
    """One measure's buckets, number of values and sum, added to as values come (batch by batch, file by file)."""

    def __init__(self) -> None:
        self.buckets: Buckets | None = None
        self.total = 0
        self.sum: int | float = 0
        self.extremes: tuple[float, float] | None = None  # of the values added one by one
        self.detail: Detail | None = None  # of the summaries added

    def add(self, values: np.ndarray) -> None:
        """Count ``values``; the sum adds them one after the other, as dolma does, so it does not depend on batch sizes."""
        if not len(values):
            return
        self._add_buckets(bucket_values(values))
        low, high = float(np.min(values)), float(np.max(values))
        self.extremes = (low, high) if self.extremes is None else (min(self.extremes[0], low), max(self.extremes[1], high))
        self.total += len(values)
        self.sum = float(np.cumsum(np.concatenate(([self.sum], values)))[-1])

    def add_summary(self, summary: DetailedSummary) -> None:
        """Merge a folded summary: its bin values are bucketed again with their counts; totals and sums add, details merge."""
        self._add_buckets(bucket_values(summary.bins[: len(summary.counts)], summary.counts))
        self.detail = summary.detail if self.detail is None else merge_details([self.detail, summary.detail])
        self.total += summary.total
        self.sum += summary.sum

    def _add_buckets(self, buckets: Buckets) -> None:
        self.buckets = buckets if self.buckets is None else merge([self.buckets, buckets])

    def summary(self, name: str, bins: int) -> DetailedSummary:
        """dolma's summary, folded into ``bins``, with the detail of the values (or of the detailed summaries) added."""
        counts, edges = fold(self.buckets, bins)
        value_sum = int(self.sum) if name.endswith("/length") else float(self.sum)
        detail = detail_of(self.buckets, *self.extremes) if self.extremes is not None else self.detail
        return DetailedSummary(name, counts.tolist(), edges.tolist(), int(self.total), value_sum, detail)
