"""Writing a group's documents as dolma's memmap series: raw token ``.npy`` files with ``.csv.gz`` indexes."""

from __future__ import annotations

import contextlib
import csv
import io

import numpy as np

from dolma_sql import storage
from dolma_sql.storage import urls
from dolma_sql.tokenizer.reading import TokenizedBatch


class MemmapSeries:
    """Writes ``<prefix>-00000.npy`` / ``.csv.gz``, ``-00001`` … each holding fewer than ``max_size`` tokens.

    A document goes into the current memmap if it keeps it under ``max_size`` tokens, otherwise
    into a new one; a document of ``max_size`` tokens or more gets a memmap of its own. Each file
    is written under the commit protocol (the memmap to a local staged file, as it is written
    raw), so a memmap and its index appear whole when complete, or not at all. As a context
    manager, leaving the block commits the last memmap and an exception aborts it.
    """

    def __init__(self, prefix: str, max_size: int, *, staging: str | None = None) -> None:
        self.prefix = prefix
        self.max_size = max_size
        self.staging = staging
        self.count = 0
        self.written = 0
        self._files: contextlib.ExitStack | None = None

    def write(self, batch: TokenizedBatch) -> None:
        ends = np.cumsum(batch.lengths)
        first = 0
        while first < len(batch.lengths):
            if self._files is None:
                self._open()
            base = ends[first - 1] if first else 0
            fits = int(np.searchsorted(ends[first:] - base, self.max_size - self.written, side="left"))
            if fits == 0 and self.written:
                self._commit()
                continue
            last = first + max(fits, 1)
            self._append(batch, first, last)
            first = last

    def _append(self, batch: TokenizedBatch, first: int, last: int) -> None:
        lo, hi = int(batch.starts[first]), int(batch.starts[last - 1] + batch.lengths[last - 1])
        self._memmap.write(batch.tokens[lo:hi].data)
        starts = batch.starts[first:last] - lo + self.written
        ends = starts + batch.lengths[first:last]
        text = io.StringIO()
        csv.writer(text).writerows(zip(starts.tolist(), ends.tolist(), batch.ids[first:last], batch.srcs[first:last], batch.locs[first:last].tolist()))
        self._index.write(text.getvalue().encode("utf-8"))
        self.written += hi - lo

    def _open(self) -> None:
        name = f"{self.prefix}-{self.count:05d}"
        self._files = contextlib.ExitStack()
        local = self._files.enter_context(storage.staged(name + ".npy", staging=self.staging))
        self._memmap = self._files.enter_context(open(local, "wb"))
        self._index = self._files.enter_context(storage.output(name + ".csv.gz", staging=self.staging))
        self.written = 0

    def _commit(self) -> None:
        files, self._files = self._files, None
        files.close()  # the index, then the memmap; a failure of either aborts what is not committed yet
        self.count += 1

    def close(self) -> None:
        if self._files is not None:
            self._commit()

    def __enter__(self) -> MemmapSeries:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        elif self._files is not None:
            files, self._files = self._files, None
            files.__exit__(exc_type, exc, tb)


def remove_series(prefix: str) -> None:
    """Remove what an earlier, unfinished attempt wrote under ``prefix``: its memmaps, indexes and temp files."""
    folder, stem = urls.parent(prefix), urls.name(prefix) + "-"
    for name in urls.listdir(folder):
        if name.startswith(stem):
            urls.remove(urls.join(folder, name))
