"""``not_alphanum_paragraph_v1`` (dolma ``taggers/punctuation.py``): paragraphs of punctuation, symbols and emoji only.

Upstream's ``regex`` pattern ``^([[:punct:]]|\\s|[emoji]+)+$`` is a character class in disguise:
``[[:punct:]]`` there is Unicode punctuation or symbol (``\\p{P}``, ``\\p{S}``), so one Rust-regex
scan per paragraph decides it.
"""

from __future__ import annotations

import numpy as np

from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.text import paragraphs

ALL_PUNCTUATION = r"^[\p{P}\p{S}\s\x{1F300}-\x{1F64F}\x{1F680}-\x{1F6FF}\x{2600}-\x{26FF}\x{2700}-\x{27BF}]+$"


@tagger("not_alphanum_paragraph_v1", types=["all_punct"])
def not_alphanum_paragraph_v1(batch: TagBatch):
    paras = paragraphs(batch)
    punctuation_only = ~paras.text.str.contains("[a-zA-Z0-9]").to_numpy() & paras.text.str.contains(ALL_PUNCTUATION).to_numpy()
    spans = Spans(paras.rows, paras.starts, paras.ends, np.ones(len(paras))).take(punctuation_only)
    # documents without such a paragraph get one doc-level span scored 0
    without = np.bincount(spans.rows, minlength=len(batch)) == 0
    return {"all_punct": Spans.concat([spans, Spans.document(batch.lengths, 0.0, where=without)])}
