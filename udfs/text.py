"""Text segmentation shared by the tagger families, vectorized with polars' Rust string kernels.

Upstream splits with Python's ``str.split()``/``str.strip()`` and ``re``; these helpers reproduce
those exact rules (Python's whitespace set, dolma's paragraph regex) over whole batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dolma_sql.tagging import TagBatch

if TYPE_CHECKING:  # imported where it is used: a tagger that needs no polars loads none (the CLD2 ones)
    import polars as pl

PY_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""Every character ``str.isspace()`` accepts: Rust's ``\\s`` (Unicode White_Space) plus U+001C..U+001F."""

WS = r"[\s\x1c-\x1f]"
NON_WS = r"[^\s\x1c-\x1f]"
WORD = NON_WS + "+"
"""A word of ``str.split()``: a maximal run of non-whitespace."""


@dataclass
class Segments:
    """Pieces of the batch's texts: row, ``[start, end)`` in code points, and the piece's text."""

    rows: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    text: pl.Series

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def lengths(self) -> np.ndarray:
        return self.ends - self.starts

    def take(self, mask: np.ndarray) -> Segments:
        import polars as pl

        return Segments(self.rows[mask], self.starts[mask], self.ends[mask], self.text.filter(pl.Series(mask)))

    def sum_per_row(self, values: np.ndarray, n_rows: int) -> np.ndarray:
        return np.bincount(self.rows, weights=values, minlength=n_rows)


def documents(batch: TagBatch) -> Segments:
    """Each whole text as one segment (for taggers that score documents and paragraphs alike)."""
    n = len(batch)
    return Segments(np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64), batch.lengths, batch.series)


def exclusive_cumsum_per_row(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Offsets of consecutive pieces within each row (``rows`` ascending)."""
    total = np.cumsum(values) - values
    first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]) if len(rows) else np.zeros(0, dtype=np.int64)
    base = np.repeat(total[first], np.diff(np.r_[first, len(rows)]))
    return total - base


def split_on(series: pl.Series, separator: str) -> tuple[np.ndarray, np.ndarray, pl.Series]:
    """``str.split(separator)`` of every text: (row, index-within-row is-last flag, pieces)."""
    parts = series.str.split(separator, inclusive=False)
    counts = parts.list.len().to_numpy().astype(np.int64)
    pieces = parts.explode()
    rows = np.repeat(np.arange(len(series), dtype=np.int64), counts)
    last = np.zeros(len(rows), dtype=bool)
    last[np.cumsum(counts)[counts > 0] - 1] = True
    return rows, last, pieces


def sentences(batch: TagBatch) -> Segments:
    """blingfire's sentences of every text (dolma's ``split_sentences``); each segment's text is its slice of the document.

    blingfire is called once per text (it has no batch call; joining texts would merge sentences across them).
    """

    def compute() -> Segments:
        import blingfire
        import polars as pl

        offsets, pieces = [], []
        for row, text in enumerate(batch.text.to_pylist()):
            if not text:
                continue
            for start, end in blingfire.text_to_sentences_and_offsets(text)[1]:
                offsets.append((row, start, end))
                pieces.append(text[start:end])
        rows, starts, ends = np.array(offsets, dtype=np.int64).reshape(-1, 3).T
        return Segments(rows, starts, ends, pl.Series("text", pieces, dtype=pl.String))

    return batch.cached("sentences", compute)


def lines(batch: TagBatch) -> Segments:
    """``text.split("\\n")``: every line, spans include the ``\\n`` after it (as c4 counts them)."""

    def compute() -> Segments:
        rows, last, pieces = split_on(batch.series, "\n")
        lengths = pieces.str.len_chars().to_numpy().astype(np.int64)
        starts = exclusive_cumsum_per_row(lengths + ~last, rows)
        return Segments(rows, starts, starts + lengths + ~last, pieces)

    return batch.cached("lines", compute)


def paragraphs(batch: TagBatch, *, remove_empty: bool = True) -> Segments:
    """dolma's ``split_paragraphs``: matches of ``[^\\n]*\\n|[^\\n]+$``, whitespace-only ones dropped.

    Each paragraph keeps its ``\\n``; text after the last newline is a paragraph only if non-empty.
    The segment text excludes the ``\\n`` (no kernel here depends on it).
    """

    def compute() -> Segments:
        every = lines(batch)
        keep = (every.ends - every.starts) > 0
        if remove_empty:
            keep &= every.text.str.contains(NON_WS).to_numpy()
        return every.take(keep)

    return batch.cached(f"paragraphs:{remove_empty}", compute)


def words_per_text(series: pl.Series) -> np.ndarray:
    """``len(text.split())`` of every text."""
    return series.str.count_matches(WORD).to_numpy().astype(np.int64)


def strip(series: pl.Series) -> pl.Series:
    """``text.strip()`` with Python's whitespace set."""
    return series.str.strip_chars(PY_WHITESPACE)
