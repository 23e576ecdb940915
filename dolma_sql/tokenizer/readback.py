"""Reading a tokens destination back (dolma's or dolma-sql's): documents with their tokens, and totals."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dolma_sql.errors import InputError
from dolma_sql.formats.lines import open_reader
from dolma_sql.storage import urls


@dataclass(frozen=True)
class TokenizedDocument:
    """One document of a destination: its row of a memmap's index, and its tokens."""

    id: str
    src: str
    loc: int
    tokens: np.ndarray
    memmap: str
    start: int
    end: int


def memmap_files(destination: str) -> list[str]:
    """The ``.npy`` memmaps of a destination, in name order; each has its ``.csv.gz`` beside it."""
    if not urls.exists(destination) or urls.isfile(destination):
        raise InputError("not a directory", path=destination, hint="pass the destination of a tokens run")
    return [urls.join(destination, name) for name in urls.listdir(destination) if name.startswith("part-") and name.endswith(".npy")]


def iter_metadata(npy_path: str) -> Iterator[tuple[int, int, str, str, int]]:
    """Rows ``(start, end, id, src, loc)`` of a memmap's ``.csv.gz``."""
    csv_path = npy_path[: -len(".npy")] + ".csv.gz"
    with io.TextIOWrapper(open_reader(csv_path), encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle), start=1):
            if len(row) != 5:
                raise InputError(f"expected 5 columns start,end,id,src,loc, got {len(row)}", path=csv_path, line=number)
            yield int(row[0]), int(row[1]), row[2], row[3], int(row[4])


def memmap_dtype(npy_path: str, tokens: int) -> np.dtype:
    """The token dtype of a raw memmap (which has no header): its size over the tokens its csv indexes."""
    size = urls.size(npy_path)
    if tokens == 0 or size % tokens or size // tokens not in (1, 2, 4, 8):
        raise InputError(f"{size} bytes do not hold {tokens} tokens of 1, 2, 4 or 8 bytes", path=npy_path, hint="pass dtype explicitly")
    return np.dtype(f"<u{size // tokens}")


def iter_documents(destination: str, dtype: str | None = None) -> Iterator[TokenizedDocument]:
    """Every document of a tokens destination (dolma's or dolma-sql's), memmap by memmap, in file order."""
    for npy_path in memmap_files(destination):
        rows = list(iter_metadata(npy_path))
        total = max((end for _, end, *_ in rows), default=0)
        if total == 0:
            continue
        array = _token_array(npy_path, np.dtype(dtype) if dtype else memmap_dtype(npy_path, total))
        for start, end, doc_id, src, loc in rows:
            if end > len(array):
                raise InputError(f"row indexes tokens {start}:{end} past the memmap's {len(array)}", path=npy_path)
            yield TokenizedDocument(doc_id, src, loc, np.asarray(array[start:end]), npy_path, start, end)


def _token_array(npy_path: str, dtype: np.dtype) -> np.ndarray:
    """A local memmap's tokens mapped from disk; a remote one's read whole."""
    local = urls.local_path(npy_path)
    if local is not None:
        return np.memmap(local, dtype=dtype, mode="r")
    return np.frombuffer(urls.read_bytes(npy_path), dtype=dtype)


def tokens_stats(destination: str) -> dict:
    """Documents and tokens in a destination, overall and per source file (from the csv indexes alone)."""
    per_source: dict[str, dict[str, int]] = {}
    documents = tokens = memmaps = 0
    for npy_path in memmap_files(destination):
        memmaps += 1
        for start, end, _id, src, _loc in iter_metadata(npy_path):
            entry = per_source.setdefault(src, {"documents": 0, "tokens": 0})
            entry["documents"] += 1
            entry["tokens"] += end - start
            documents += 1
            tokens += end - start
    return {"memmaps": memmaps, "documents": documents, "tokens": tokens, "sources": dict(sorted(per_source.items()))}
