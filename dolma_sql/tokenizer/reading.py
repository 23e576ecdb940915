"""Tokenized documents, read from a group's files through a ring and shuffled a batch at a time."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dolma_sql.config.tokens import FieldsConfig
from dolma_sql.formats.documents import iter_document_batches
from dolma_sql.tokenizer.tokenizer import DocumentTokenizer

if TYPE_CHECKING:
    from dolma_sql.tokenizer.plan import GroupUnit


@dataclass
class TokenizedBatch:
    """Tokenized documents of one input batch: document ``i`` is ``tokens[starts[i] : starts[i] + lengths[i]]``."""

    tokens: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    ids: list[str]
    locs: np.ndarray
    srcs: list[str]


READ_BYTES = 2 << 20
"""Decompressed bytes per input batch: keeps ``ring_size`` open files' batches small."""


def iter_tokenized(path: str, tokenizer: DocumentTokenizer, fields: FieldsConfig) -> Iterator[TokenizedBatch]:
    """Documents of ``path``, tokenized one Arrow batch at a time; empty (whitespace-only) texts are skipped."""
    text_field, id_field = fields.text_field_name, fields.id_field_name
    names = (id_field, text_field) if id_field else (text_field,)
    path_hash = hashlib.sha256(path.encode()).hexdigest()
    for batch in iter_document_batches(path, fields=names, required=names, batch_bytes=READ_BYTES, count_progress=True):
        texts = [text.strip() for text in batch.table.column(text_field).to_pylist()]
        keep = [row for row, text in enumerate(texts) if text]
        if not keep:
            continue
        if len(keep) < len(texts):
            texts = [texts[row] for row in keep]
        rows = np.asarray(keep, dtype=np.int64)
        if id_field:
            ids = batch.table.column(id_field).take(rows).to_pylist()
        else:
            ids = [f"{path_hash}-{batch.first_line + row}" for row in keep]
        tokens, lengths = tokenizer.encode(texts)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        yield TokenizedBatch(tokens, starts, lengths, ids, rows + batch.first_line, [path] * len(keep))


class _Source:
    """One file in the ring: hands out its tokenized documents one at a time, loading batches lazily."""

    def __init__(self, size: int, batches: Iterator[TokenizedBatch]) -> None:
        self.size = size
        self._batches = batches
        self.batch: TokenizedBatch | None = None
        self.next_row = 0

    def take(self) -> tuple[TokenizedBatch, int] | None:
        while self.batch is None or self.next_row >= len(self.batch.lengths):
            self.batch = next(self._batches, None)
            self.next_row = 0
            if self.batch is None:
                return None
        self.next_row += 1
        return self.batch, self.next_row - 1


def iter_shuffled_batches(unit: GroupUnit, tokenizer: DocumentTokenizer, rng: np.random.Generator) -> Iterator[TokenizedBatch]:
    """The group's documents, interleaved through the ring and shuffled ``batch_size`` at a time."""
    config = unit.config
    pending = list(zip(unit.files, unit.file_sizes))

    def next_source() -> _Source:
        path, size = pending.pop()
        return _Source(size, iter_tokenized(path, tokenizer, config.fields))

    ring = [next_source() for _ in range(min(config.ring_size, len(pending)))]
    while ring:
        picks: list[tuple[TokenizedBatch, int]] = []
        turn = 0
        while ring and len(picks) < config.batch_size:
            if config.sample_ring_prop:
                sizes = np.array([source.size for source in ring], dtype=np.float64)
                slot = int(rng.choice(len(ring), p=sizes / sizes.sum())) if sizes.sum() else turn % len(ring)
            else:
                slot = turn % len(ring)
            turn += 1
            pick = ring[slot].take()
            if pick is None:
                ring.pop(slot)
                if pending:
                    ring.append(next_source())
                continue
            picks.append(pick)
        if picks:
            yield _gather(picks, rng.permutation(len(picks)))


def _gather(picks: list[tuple[TokenizedBatch, int]], order: np.ndarray) -> TokenizedBatch:
    """One batch holding ``picks`` in ``order``, their tokens copied into one array (no per-token index arrays)."""
    chosen = [picks[index] for index in order.tolist()]
    lengths = np.fromiter((batch.lengths[row] for batch, row in chosen), dtype=np.int64, count=len(chosen))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    tokens = np.empty(int(lengths.sum()), dtype=chosen[0][0].tokens.dtype)
    for (batch, row), start, length in zip(chosen, starts.tolist(), lengths.tolist()):
        source = int(batch.starts[row])
        tokens[start : start + length] = batch.tokens[source : source + length]
    locs = np.fromiter((batch.locs[row] for batch, row in chosen), dtype=np.int64, count=len(chosen))
    return TokenizedBatch(tokens, starts, lengths, [b.ids[r] for b, r in chosen], locs, [b.srcs[r] for b, r in chosen])
