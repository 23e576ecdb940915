"""Character repetition taggers (dolma ``taggers/repetitions``): spans matching ``(.+?)(\\s?\\1){3,}``.

The pattern needs a backreference, which no vectorized (automaton) regex engine supports, so each
text runs Python's ``re`` as upstream does; these taggers are per-document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from dolma_sql.tagging import Spans, TagBatch, tagger

REPETITION = re.compile(r"(.+?)(\s?\1){3,}")
PARAGRAPH = re.compile(r"([^\n]*\n|[^\n]+$)")
TYPES = ("repetition", "doc_max_score_repetition", "doc_max_length_repetition", "doc_frac_repetition")


def _repetitions(text: str, offset: int = 0) -> Iterator[tuple[int, int, int]]:
    for match in REPETITION.finditer(text):
        yield match.start() + offset, match.end() + offset, match.group(0).count(match.group(1))


def _paragraph_repetitions(text: str) -> Iterator[tuple[int, int, int]]:
    for paragraph in PARAGRAPH.finditer(text):
        yield from _repetitions(paragraph.group(), paragraph.start())


def _tag(batch: TagBatch, finder) -> dict[str, Spans]:
    rows, starts, ends, scores = [], [], [], []
    for row, text in enumerate(batch.text.to_pylist()):
        for start, end, score in finder(text):
            rows.append(row)
            starts.append(start)
            ends.append(end)
            scores.append(score)
    return with_document_stats(batch, Spans(rows, starts, ends, scores))


def with_document_stats(batch: TagBatch, spans: Spans, *, when_empty: bool = True) -> dict[str, Spans]:
    """The repetition spans plus each document's maximum score, maximum length and covered fraction
    (0 for a document without repetitions, or no stats at all for it unless ``when_empty``)."""
    n_rows, lengths = len(batch), batch.lengths
    found = spans.per_row(n_rows) > 0
    max_score = np.zeros(n_rows)
    np.maximum.at(max_score, spans.rows, spans.scores)
    max_length = np.zeros(n_rows)
    np.maximum.at(max_length, spans.rows, spans.ends - spans.starts)
    covered = np.bincount(spans.rows, weights=spans.ends - spans.starts, minlength=n_rows)
    where = None if when_empty else found
    return {
        "repetition": spans,
        "doc_max_score_repetition": Spans.document(lengths, np.where(found, max_score, 0.0), where),
        "doc_max_length_repetition": Spans.document(lengths, np.where(found, max_length, 0.0), where),
        "doc_frac_repetition": Spans.document(lengths, np.where(found, covered / np.maximum(lengths, 1), 0.0), where),
    }


@tagger("repetitions_v1", types=TYPES, vectorized=False)
def repetitions_v1(batch: TagBatch):
    return _tag(batch, _repetitions)


@tagger("paragraph_repetitions_v1", types=TYPES, vectorized=False)
def paragraph_repetitions_v1(batch: TagBatch):
    return _tag(batch, _paragraph_repetitions)
