"""Token repetition taggers (dolma ``taggers/repetitions``): periodic runs of token ids, with a local tokenizer.json.

``tokenizer_repetitions_v1``, ``paragraph_tokenizer_repetitions_v1`` and ``tokenizer_repetitions_v2r2``
find token sequences of period 1 to 13 repeated at least three times (``--models.tokenizer PATH``;
upstream downloads ``allenai/eleuther-ai-gpt-neox-20b-pii-special`` from the Hugging Face hub).
Texts are encoded a batch at once; the search over each text's ids is numpy per text, so these
taggers are per-document. The search follows upstream's: the ids are cut into rows of ``period``
ids (the last row padded), a run of rows equal to the row before is a repetition, widened by the
equal ids at the end of the row before it and at the start of the row after it.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from dolma_sql.formats.attributes import Spans
from dolma_sql.tagging import TagBatch, tagger
from dolma_sql.udfs.repetitions import TYPES, with_document_stats
from dolma_sql.udfs.text import paragraphs
from dolma_sql.udfs.token_counts import load_tokenizer, require_tokenizer

MIN_PERIOD, MAX_PERIOD = 1, 13
CHUNK = 100_000
"""``tokenizer_repetitions_v2r2`` searches texts in chunks of this many characters."""


def _leading_true(values: np.ndarray) -> int:
    false = np.flatnonzero(~values)
    return int(false[0]) if len(false) else len(values)


def periodic_sequences(ids: np.ndarray) -> Iterator[tuple[int, int, int]]:
    """``(start, end, times)`` in token positions of each run repeated at least 3 times, by period then position."""
    for period in range(MIN_PERIOD, min(MAX_PERIOD, len(ids) // 3) + 1):
        rows = np.pad(ids, (0, period - len(ids) % period), constant_values=-1).reshape(-1, period)
        equal = rows == np.roll(rows, 1, axis=0)
        repeating = np.flatnonzero(equal.all(axis=1))
        if not len(repeating):
            continue
        for group in np.split(repeating, np.flatnonzero(np.diff(repeating) != 1) + 1):
            first, last = int(group[0]), int(group[-1])
            trailing = _leading_true(equal[first - 1][::-1])  # equal ids at the end of the row before
            before = trailing if 0 < trailing < period else 0
            start = (first - 1) * period - before
            end = (last + 1) * period + _leading_true(equal[last + 1])
            if (times := (end - start) // period) > 2:
                yield start, end, times


def _repetitions(encoding) -> list[tuple[int, int, int]]:
    """Character spans of the repeated token runs of one encoded text."""
    offsets = encoding.offsets
    return [(offsets[start][0], offsets[end - 1][1], times) for start, end, times in periodic_sequences(np.array(encoding.ids, dtype=np.int64))]


def _encode(batch: TagBatch, texts: list[str]):
    return load_tokenizer(batch.options["tokenizer"]).encode_batch(texts, add_special_tokens=False)


def _spans(pieces: list[tuple[int, list[tuple[int, int, int]]]]) -> Spans:
    rows = [row for row, found in pieces for _ in found]
    return Spans(rows, [s for _, found in pieces for s, _, _ in found], [e for _, found in pieces for _, e, _ in found],
                 [t for _, found in pieces for _, _, t in found])


def _non_overlapping(found: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """By start, longest and highest first; a span inside the one kept before it is dropped."""
    kept, previous = [], (-1, -1)
    for start, end, times in sorted(found, key=lambda span: (span[0], -span[1], -span[2])):
        if start >= previous[0] and end <= previous[1]:
            continue
        previous = (start, end)
        kept.append((start, end, times))
    return kept


REPETITIONS = {"types": TYPES, "requires": "tokenizers", "check": require_tokenizer, "vectorized": False}


@tagger("tokenizer_repetitions_v1", **REPETITIONS)
def tokenizer_repetitions_v1(batch: TagBatch):
    encodings = _encode(batch, batch.column("text").to_pylist())
    return with_document_stats(batch, _spans([(row, _repetitions(encoding)) for row, encoding in enumerate(encodings)]))


@tagger("paragraph_tokenizer_repetitions_v1", **REPETITIONS)
def paragraph_tokenizer_repetitions_v1(batch: TagBatch):
    """Per paragraph (empty ones too), each encoded after a space as upstream does, offsets shifted back by one."""
    paras = paragraphs(batch, remove_empty=False)
    texts = batch.column("text").to_pylist()
    pieces = [f" {texts[row][start:end]}" for row, start, end in zip(paras.rows.tolist(), paras.starts.tolist(), paras.ends.tolist())]
    found = [(row, [(s + start - 1, e + start - 1, t) for s, e, t in _repetitions(encoding)])
             for row, start, encoding in zip(paras.rows.tolist(), paras.starts.tolist(), _encode(batch, pieces))]
    return with_document_stats(batch, _spans(found))


@tagger("tokenizer_repetitions_v2r2", **REPETITIONS)
def tokenizer_repetitions_v2r2(batch: TagBatch):
    """Non-overlapping spans found in chunks of 100,000 characters; no document stats without a repetition."""
    texts = batch.column("text").to_pylist()
    chunks = [(row, offset, text[offset : offset + CHUNK]) for row, text in enumerate(texts) for offset in range(0, len(text), CHUNK)]
    encodings = _encode(batch, [chunk for _, _, chunk in chunks])
    found = [(row, [(s + offset, e + offset, t) for s, e, t in _non_overlapping(_repetitions(encoding))])
             for (row, offset, _), encoding in zip(chunks, encodings)]
    return with_document_stats(batch, _spans(found), when_empty=False)
