"""The documents a tagger sees: one batch of Arrow columns, with features derived once per batch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


@dataclass
class TagBatch:
    """Arrow columns of a batch of documents plus derived features computed once per batch.

    Derived features (lengths, a polars view of the text, paragraph splits, …) are cached with
    :meth:`cached`, so several taggers in one run share them. ``options`` holds the configured
    model and list paths (``--models.NAME``).
    """

    table: pa.Table
    seed: int = 0
    options: dict = field(default_factory=dict)
    path: str = ""
    """The document file the batch comes from (``""`` outside ``tag``)."""
    _cache: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return self.table.num_rows

    def column(self, name: str) -> pa.Array:
        column = self.table.column(name)
        return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()

    @cached_property
    def text(self) -> pa.LargeStringArray:
        """The texts, their bytes followed by an ASCII byte (see :func:`followed_by_ascii`)."""
        return followed_by_ascii(self.column("text").cast(pa.large_string()))

    @cached_property
    def lengths(self) -> np.ndarray:
        """Length of each text in code points (Python's ``len``)."""
        return pc.utf8_length(self.text).to_numpy(zero_copy_only=False).astype(np.int64)

    @cached_property
    def series(self):
        """The text as a polars Series (polars' Rust string kernels run on it)."""
        import polars as pl

        return pl.Series("text", self.text)

    def metadata_field(self, key: str):
        """``metadata.<key>`` of each document as a polars Series of JSON-path matches (strings unquoted, null if absent)."""
        import polars as pl

        return pl.Series(self.column("metadata").cast(pa.large_string())).str.json_path_match(f"$.{key}")

    def cached(self, key: str, compute: Callable[[], object]):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


def followed_by_ascii(texts: pa.LargeStringArray) -> pa.LargeStringArray:
    """``texts`` with an ASCII byte after the last one's bytes (a copy of the data only when needed).

    Arrow's whitespace split (``utf8_split_whitespace``) decodes the character after a string's
    trailing whitespace; past the last string that is whatever follows the data, and a byte that is
    no UTF-8 character start made it keep the whitespace in the last word, at random.
    """
    validity, offsets, data = texts.buffers()
    end = int(np.frombuffer(offsets, dtype=np.int64)[texts.offset + len(texts)])
    if data is not None and data.size > end and np.frombuffer(data, dtype=np.uint8)[end] < 0x80:
        return texts
    padded = np.zeros(end + 1, dtype=np.uint8)
    if data is not None:
        padded[:end] = np.frombuffer(data, dtype=np.uint8, count=end)
    return pa.LargeStringArray.from_buffers(len(texts), offsets, pa.py_buffer(padded), validity, texts.null_count, texts.offset)
