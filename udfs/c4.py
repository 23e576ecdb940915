"""C4 rules (dolma ``taggers/c4.py``): per-line punctuation/length spans and doc-level flags.

Lines come from one ``split("\\n")`` of the batch; the flags are single regex scans of the
lowercased texts (the naughty-word list compiled to one alternation bounded by whitespace,
which is exactly "a ``str.split()`` token equals a listed word", or'ed with the phrases and
run by RE2, which is faster than Rust's regex on that large alternation).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import numpy as np
import polars as pl
import pyarrow.compute as pc

from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.text import NON_WS, PY_WHITESPACE, WS, Segments, exclusive_cumsum_per_row, split_on

MIN_WORDS_PER_LINE = 3
ENDS_WITH_PUNCTUATION = r'[.?!"]' + WS + "*$"
ENOUGH_WORDS = f"^{WS}*" + f"{NON_WS}+{WS}+" * (MIN_WORDS_PER_LINE - 1) + NON_WS
"""A line with at least MIN_WORDS_PER_LINE ``str.split()`` words: an anchored match stops at the
third word, where counting every word would scan the whole line."""
FLAGS_V2 = ("has_curly_brace", "has_lorem_ipsum", "has_javascript", "has_naughty_word")
LINE_TYPES = ("lines_with_no_ending_punctuation", "lines_with_too_few_words")


SPACE = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in PY_WHITESPACE) + "]"
"""Python's whitespace set spelled out: one class that Rust's regex and RE2 (whose ``\\s`` is ASCII) read alike."""


def regex_escape(literal: str) -> str:
    """Escape a literal for Rust's regex syntax (polars) and RE2 (Arrow)."""
    return "".join("\\" + c if c in r"\.+*?()|[]{}^$#&-~" else c for c in literal)


def whole_word(alternatives: list[str]) -> str:
    """A pattern matching when some whitespace-delimited token equals one of ``alternatives``."""
    return f"(?:^|{SPACE})(?:{'|'.join(map(regex_escape, alternatives))})(?:{SPACE}|$)"


@cache
def naughty_pattern() -> str:
    """A listed single word as a token, or a listed phrase anywhere (the bundled LDNOOBW English list)."""
    listed = resources.files("dolma_sql.udfs").joinpath("data/naughty_words_en.txt").read_text(encoding="utf-8").splitlines()
    words = [w for w in listed if " " not in w]
    phrases = [w for w in listed if " " in w]
    return f"(?:{whole_word(words)})|{'|'.join(map(regex_escape, phrases))}"


def _lowercase(batch: TagBatch) -> pl.Series:
    return batch.cached("lowercase", lambda: batch.series.str.to_lowercase())


def _has_naughty_word(lowered: pl.Series) -> np.ndarray:
    return pc.match_substring_regex(lowered.to_arrow(), naughty_pattern()).to_numpy(zero_copy_only=False)


def _line_spans(series: pl.Series) -> tuple[Segments, np.ndarray, np.ndarray, np.ndarray]:
    """Lines of ``text.split("\\n")``, each span including its newline, with (no ending punctuation,
    too few words, lines per row). Upstream's two rules for the newline (v1: not the last line; v2:
    not ending at ``len(text)``) select the same lines."""
    rows, last, pieces = split_on(series, "\n")
    lengths = pieces.str.len_chars().to_numpy().astype(np.int64)
    with_newline = ~last
    starts = exclusive_cumsum_per_row(lengths + with_newline, rows)
    segments = Segments(rows, starts, starts + lengths + with_newline, pieces)
    no_punctuation = ~pieces.str.contains(ENDS_WITH_PUNCTUATION).to_numpy()
    too_few = ~pieces.str.contains(ENOUGH_WORDS).to_numpy()
    return segments, no_punctuation, too_few, np.bincount(rows, minlength=len(series))


def _line_outputs(segments: Segments, no_punctuation: np.ndarray, too_few: np.ndarray) -> dict[str, Spans]:
    ones = np.ones(len(segments))
    spans = Spans(segments.rows, segments.starts, segments.ends, ones)
    return {"lines_with_no_ending_punctuation": spans.take(no_punctuation), "lines_with_too_few_words": spans.take(too_few)}


@tagger("c4_v1", types=[*LINE_TYPES, "has_naughty_word", "has_javascript", "has_lorem_ipsum", "has_curly_brace", "line_count"])
def c4_v1(batch: TagBatch):
    segments, no_punctuation, too_few, line_count = _line_spans(batch.series)
    lowered = _lowercase(batch)
    flags = {
        "has_naughty_word": _has_naughty_word(lowered),
        "has_javascript": lowered.str.contains(whole_word(["javascript"])).to_numpy(),
        "has_lorem_ipsum": lowered.str.contains("lorem ipsum", literal=True).to_numpy(),
        "has_curly_brace": lowered.str.contains("{", literal=True).to_numpy(),
    }
    return {
        **_line_outputs(segments, no_punctuation, too_few),
        **{name: Spans.document(batch.lengths, 1.0, where=flag) for name, flag in flags.items()},
        "line_count": Spans.document(batch.lengths, line_count),
    }


@tagger("c4_v2", types=[*FLAGS_V2, *LINE_TYPES, "line_count"])
def c4_v2(batch: TagBatch):
    lowered = _lowercase(batch)  # c4_v2 measures lines of the lowercased text, as upstream does
    flags = {
        "has_curly_brace": lowered.str.contains("{", literal=True).to_numpy(),
        "has_lorem_ipsum": lowered.str.contains("lorem ipsum", literal=True).to_numpy(),
        "has_javascript": lowered.str.contains("javascript", literal=True).to_numpy(),
        "has_naughty_word": _has_naughty_word(lowered),
    }
    segments, no_punctuation, too_few, line_count = _line_spans(lowered)
    return {
        **{name: Spans.document(batch.lengths, 1.0, where=flag) for name, flag in flags.items()},
        **_line_outputs(segments, no_punctuation, too_few),
        "line_count": Spans.document(batch.lengths, line_count),
    }
