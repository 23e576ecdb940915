"""dolma's histograms: values counted into fixed buckets, folded into ``bins`` bins.

A bucket is the ``frexp`` mantissa floored to 1/100000 and the exponent (dolma's
``FixedBucketsValTracker(n=5)``); its count is exact, so buckets of many batches or files merge
without loss, and only the folding into ``bins`` loses detail.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import numpy as np

MANTISSA_STEPS = 100_000
"""Buckets per power of two (dolma's ``FixedBucketsValTracker(n=5)``)."""

_EXPONENT_OFFSET = 4096
_MANTISSA_SPAN = 4 * MANTISSA_STEPS


class Summary(msgspec.Struct):
    """One line of dolma's ``summaries.jsonl.gz``: a histogram (``bins`` are edges, or bucket values plus an upper edge)."""

    name: str
    counts: list[int]
    bins: list[float]
    total: int
    sum: int | float


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

    def add(self, values: np.ndarray) -> None:
        """Count ``values``; the sum adds them one after the other, as dolma does, so it does not depend on batch sizes."""
        if not len(values):
            return
        self._add_buckets(bucket_values(values))
        self.total += len(values)
        self.sum = float(np.cumsum(np.concatenate(([self.sum], values)))[-1])

    def add_summary(self, summary: Summary) -> None:
        """Merge a folded summary: its bin values are bucketed again with their counts; totals and sums add."""
        self._add_buckets(bucket_values(summary.bins[: len(summary.counts)], summary.counts))
        self.total += summary.total
        self.sum += summary.sum

    def _add_buckets(self, buckets: Buckets) -> None:
        self.buckets = buckets if self.buckets is None else merge([self.buckets, buckets])

    def summary(self, name: str, bins: int) -> Summary:
        counts, edges = fold(self.buckets, bins)
        value_sum = int(self.sum) if name.endswith("/length") else float(self.sum)
        return Summary(name, counts.tolist(), edges.tolist(), int(self.total), value_sum)
