"""Length and counting taggers (dolma ``taggers/length.py``): one doc-level span, or paragraph spans."""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.text import paragraphs, strip

TOKEN = r"\w+|[^\w\s]+"
"""dolma's whitespace tokenizer pattern; ``len(regex.split(TOKEN, text))`` is the match count + 1."""


@tagger("bytes_length_v1", types=["bytes"])
def bytes_length_v1(batch: TagBatch):
    sizes = pc.binary_length(batch.text).to_numpy(zero_copy_only=False)
    return {"bytes": Spans.document(batch.lengths, sizes)}


@tagger("doc_count_v1", types=["docs"])
def doc_count_v1(batch: TagBatch):
    return {"docs": Spans.document(batch.lengths, 1.0)}


@tagger("char_length_v1", types=["length"])
def char_length_v1(batch: TagBatch):
    return {"length": Spans.document(batch.lengths, batch.lengths)}


@tagger("char_length_strip_ws_v1", types=["length_no_ws"])
def char_length_strip_ws_v1(batch: TagBatch):
    stripped = strip(batch.series).str.len_chars().to_numpy()
    return {"length_no_ws": Spans.document(batch.lengths, stripped)}


@tagger("char_length_with_paragraphs_v1", types=["paragraph", "document"])
def char_length_with_paragraphs_v1(batch: TagBatch):
    paras = paragraphs(batch)
    return {
        "paragraph": Spans(paras.rows, paras.starts, paras.ends, paras.lengths),
        "document": Spans.document(batch.lengths, batch.lengths),
    }


def _token_counts(series) -> np.ndarray:
    return series.str.count_matches(TOKEN).to_numpy().astype(np.int64) + 1


@tagger("whitespace_tokenizer_v1", types=["length"])
def whitespace_tokenizer_v1(batch: TagBatch):
    return {"length": Spans.document(batch.lengths, _token_counts(batch.series))}


@tagger("whitespace_tokenizer_with_paragraphs_v1", types=["paragraph", "document"])
def whitespace_tokenizer_with_paragraphs_v1(batch: TagBatch):
    paras = paragraphs(batch)
    counts = _token_counts(paras.text)
    return {
        "paragraph": Spans(paras.rows, paras.starts, paras.ends, counts),
        "document": Spans.document(batch.lengths, paras.sum_per_row(counts, len(batch))),
    }
