"""Word counts by Unicode word segmentation (UAX #29) with the ``uniseg`` package, as dolma's ``uniseg_length_*``.

uniseg is a pure-Python segmenter called per text, so these taggers are per-document; the
paragraph split around it is the shared vectorized one.
"""

from __future__ import annotations

import numpy as np

from dolma_sql.errors import ConfigError
from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.text import paragraphs


def require_uniseg(options: dict) -> None:
    try:
        import uniseg.wordbreak  # noqa: F401
    except ImportError:
        raise ConfigError("the uniseg_length taggers need the uniseg package", path="taggers", hint="pip install uniseg") from None


UNISEG = {"requires": "uniseg", "check": require_uniseg, "vectorized": False}


@tagger("uniseg_length_v1", types=["length"], **UNISEG)
def uniseg_length_v1(batch: TagBatch):
    from uniseg.wordbreak import words

    counts = [sum(1 for _ in words(stripped)) if (stripped := text.strip()) else 0 for text in batch.text.to_pylist()]
    return {"length": Spans.document(batch.lengths, counts)}


def _paragraph_lengths(batch: TagBatch, remove_empty: bool) -> dict[str, Spans]:
    from uniseg.wordbreak import words

    paras = paragraphs(batch, remove_empty=remove_empty)
    counts = np.array([sum(1 for w in words(text.strip()) if w.strip()) for text in paras.text.to_list()], dtype=np.int64)
    return {
        "paragraph": Spans(paras.rows, paras.starts, paras.ends, counts),
        "negative_paragraph": Spans(paras.rows, paras.starts, paras.ends, -counts),  # integer negation: -0 is 0
    }


@tagger("uniseg_length_paragraphs_v1", types=["paragraph", "negative_paragraph"], **UNISEG)
def uniseg_length_paragraphs_v1(batch: TagBatch):
    return _paragraph_lengths(batch, remove_empty=True)


@tagger("uniseg_length_paragraphs_with_empty_v1", types=["paragraph", "negative_paragraph"], **UNISEG)
def uniseg_length_paragraphs_with_empty_v1(batch: TagBatch):
    return _paragraph_lengths(batch, remove_empty=False)


@tagger("uniseg_length_paragraphs_with_doc_length_v1", types=["paragraph", "negative_paragraph", "document", "negative_document"], **UNISEG)
def uniseg_length_paragraphs_with_doc_length_v1(batch: TagBatch):
    output = _paragraph_lengths(batch, remove_empty=True)
    n, lengths = len(batch), batch.lengths
    total = np.bincount(output["paragraph"].rows, weights=output["paragraph"].scores, minlength=n).astype(np.int64)
    return {**output, "document": Spans.document(lengths, total), "negative_document": Spans.document(lengths, -total)}
