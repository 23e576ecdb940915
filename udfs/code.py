"""Code-quality taggers (dolma ``taggers/code/code_taggers.py``): RedPajama line/character statistics and copyright headers.

Upstream needs ``pip install dolma[code]`` (detect-secrets, bs4, pygments) even for these two,
which use none of them; here they have no optional dependency.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl

from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.length import TOKEN
from dolma_sql.udfs.text import split_on

LINE_BREAKS = "[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]"
"""The line boundaries of ``str.splitlines`` (plus ``\\r\\n``, replaced first)."""


def _splitlines_lengths(series: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """(row, length) of every line of ``text.splitlines()``: no trailing empty line after a final break."""
    unified = series.str.replace_all("\r\n", "\n", literal=True).str.replace_all(LINE_BREAKS, "\n")
    rows, last, pieces = split_on(unified, "\n")
    lengths = pieces.str.len_chars().to_numpy().astype(np.int64)
    keep = ~(last & (lengths == 0))
    return rows[keep], lengths[keep]


@tagger("code_redpajama_taggers_v1", types=["max_line_length_doc", "avg_line_length_doc", "alnum_prop_doc", "alpha_token_prop_doc"])
def code_redpajama_taggers_v1(batch: TagBatch):
    n, lengths, series = len(batch), batch.lengths, batch.series
    rows, line_lengths = _splitlines_lengths(series)
    lines = np.bincount(rows, minlength=n)
    longest = np.zeros(n)
    np.maximum.at(longest, rows, line_lengths)
    average = np.bincount(rows, weights=line_lengths, minlength=n) / np.maximum(lines, 1)
    alnum = series.str.count_matches(r"[\p{L}\p{N}]").to_numpy()
    alpha = series.str.count_matches(r"\p{L}").to_numpy()
    tokens = series.str.count_matches(TOKEN).to_numpy() + 1
    return {
        "max_line_length_doc": Spans.document(lengths, longest),
        "avg_line_length_doc": Spans.document(lengths, average),
        "alnum_prop_doc": Spans.document(lengths, np.where(lengths > 0, alnum / np.maximum(lengths, 1), 0.0)),
        "alpha_token_prop_doc": Spans.document(lengths, alpha / tokens),
    }


_BLOCK_COMMENT = re.compile(r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/")
_COPYRIGHT = re.compile("copyright", re.IGNORECASE)


def _copyright_span(text: str) -> tuple[str, int, int] | None:
    """The first ``/* … */`` block if it says "copyright" (none if it does not); else the leading comment lines.

    As upstream, the comment-block end adds up line lengths without their newlines (and 1 per empty line).
    """
    block = _BLOCK_COMMENT.search(text)
    if block:
        return ("copyright_notice", *block.span()) if _COPYRIGHT.search(block.group()) else None
    skipped = end = 0
    for line in text.split("\n"):
        if not line or line.startswith(("//", "#", "--")):
            skipped += 1
            end += len(line) if line else 1
        else:
            break
    return ("comment_block", 0, end) if skipped else None


@tagger("code_copyright_comments_v1", types=["copyright_notice", "comment_block", "doc"], vectorized=False)
def code_copyright_comments_v1(batch: TagBatch):
    found: dict[str, list[tuple[int, int, int]]] = {"copyright_notice": [], "comment_block": []}
    score = np.zeros(len(batch))
    for row, text in enumerate(batch.text.to_pylist()):
        span = _copyright_span(text)
        if span is not None:
            kind, start, end = span
            found[kind].append((row, start, end))
            score[row] = (end - start + 1) / len(text) if text else -1.0
    output = {kind: Spans(*map(list, zip(*items)), np.ones(len(items))) for kind, items in found.items() if items}
    return {**output, "doc": Spans.document(batch.lengths, score)}
