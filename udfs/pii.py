"""Regex PII taggers (dolma ``taggers/pii.py``): e-mail addresses, phone numbers, IPv4 addresses.

Most documents contain none, so a vectorized pre-scan (polars' Rust regex, a superset of what the
patterns can match: an ``@``, or the phone/IP pattern itself) picks the few candidate documents,
and only those run the exact upstream patterns with Python's ``re`` (same engine, so the same
leftmost-first matches, ``\\s``/``\\d`` classes and spans). This per-document step is the only
non-vectorized part and touches a small fraction of a typical corpus.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pyarrow.compute as pc

from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.text import paragraphs, words_per_text

EMAIL, PHONE, IP = "EMAIL_ADDRESS", "PHONE_NUMBER", "IP_ADDRESS"
PII_TYPES = (EMAIL, PHONE, IP)
EMAIL_PATTERN = r"[.\s@,?!;:)(]*([^\s@]+@[^\s@,?!;:)(]+?)[.\s@,?!;:)(]?[\s\n\r]"
PHONE_PATTERN = r"\s+\(?(\d{3})\)?[-\. ]*(\d{3})[-. ]?(\d{4})"
IP_PATTERN = r"(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
# Upstream writes "\b" in a non-raw string: a literal backspace (U+0008), so a "URL" needs one before it.
URL_PATTERN = (
    "(?i)\b((?:https?://|www\\d{0,3}[.]|[a-z0-9.\\-]+[.][a-z]{2,4}/)(?:[^\\s()<>]+|\\(([^\\s()<>]+|"
    "(\\([^\\s()<>]+\\)))*\\))+(?:\\(([^\\s()<>]+|(\\([^\\s()<>]+\\)))*\\)|[^\\s`!()\\[\\]"
    "{};:'\".,<>?«»“”‘’]))"
)
WINDOW = 100
MAX_QUESTION_MARKS = 10_000

_PATTERNS = {EMAIL: re.compile(EMAIL_PATTERN), PHONE: re.compile(PHONE_PATTERN), IP: re.compile(IP_PATTERN)}
_URL = re.compile(URL_PATTERN)
_PRE_IP = re.compile(r"\.[^\s]")
_PRE_PHONE = re.compile(r"\d")
# Rust-regex prefilters, supersets of what each pattern can match (Python's \s also covers U+001C..U+001F)
_HINTS = {EMAIL: "@", PHONE: PHONE_PATTERN.replace(r"\s", r"[\s\x1c-\x1f]"), IP: IP_PATTERN}
_ANY_HINT = "|".join(_HINTS.values())  # "@" is no regex operator


def _candidates(texts) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Indices of the texts (a polars Series) that could contain a match, found in one scan for all
    types, and per PII type which of those candidates could (each type's scan runs on the few candidates)."""
    candidates = np.flatnonzero(texts.str.contains(_ANY_HINT).to_numpy())
    subset = texts.gather(candidates)
    return candidates, {kind: subset.str.contains(pattern, literal=kind == EMAIL).to_numpy() for kind, pattern in _HINTS.items()}


def _document_candidates(batch: TagBatch) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """:func:`_candidates` of the whole texts, shared by the PII taggers of one run."""
    return batch.cached("pii_candidates", lambda: _candidates(batch.series))


class _Collector:
    """Spans per PII type, appended row by row (rows arrive ascending)."""

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[int, int, int]]] = {t: [] for t in PII_TYPES}

    def add(self, row: int, kind: str, start: int, end: int) -> None:
        self.spans[kind].append((row, start, end))

    def output(self) -> dict[str, Spans]:
        result = {}
        for kind, items in self.spans.items():
            if items:
                rows, starts, ends = np.array(items, dtype=np.int64).T
                result[kind] = Spans(rows, starts, ends, np.ones(len(rows)))
        return result

    def counts(self, n_rows: int) -> np.ndarray:
        rows = [row for items in self.spans.values() for row, _, _ in items]
        return np.bincount(np.array(rows, dtype=np.int64), minlength=n_rows)


# ------------------------------------------------------------------ whole-text taggers (BasePiiFilter)
def _whole_text_spans(text: str, kinds: list[str]) -> Iterator[tuple[str, int, int]]:
    """Matches per type, then upstream's post-processing (context words, e-mail shape, URL check)."""
    has_url = None
    for kind in kinds:
        for match in _PATTERNS[kind].finditer(text):
            start, end = match.span()
            if kind == EMAIL:
                parts = text[start:end].split("@")
                if parts[0].strip() == "(" or "." not in parts[1]:
                    continue
            else:
                context = text[max(0, start - WINDOW) : min(len(text), end + WINDOW)]
                if "isbn" in context or "doi" in context or "#" in context:
                    continue
                if kind == PHONE:
                    if has_url is None:  # the URL pattern needs a literal backspace (see URL_PATTERN)
                        has_url = "\b" in text and bool(_URL.findall(text))
                    if has_url:
                        continue
            yield kind, start, end


def _whole_text(batch: TagBatch) -> tuple[dict[str, Spans], np.ndarray, np.ndarray]:
    """(PII spans, spans per row, doc score = spans / words, -1 when there are no words)."""
    rows, hints = _document_candidates(batch)
    collector = _Collector()
    for index, (row, text) in enumerate(zip(rows.tolist(), batch.text.take(rows).to_pylist())):
        for kind, start, end in _whole_text_spans(text, [k for k in PII_TYPES if hints[k][index]]):
            collector.add(row, kind, start, end)
    counts = collector.counts(len(batch))
    words = words_per_text(batch.series)
    score = np.where(words > 0, counts / np.maximum(words, 1), -1.0)
    return collector.output(), counts, score


@tagger("pii_regex_v1", types=[*PII_TYPES, "doc"])
def pii_regex_v1(batch: TagBatch):
    # upstream divides by the word count and crashes (ZeroDivisionError) on texts without words; -1 as in v2
    spans, _, score = _whole_text(batch)
    return {**spans, "doc": Spans.document(batch.lengths, score)}


@tagger("pii_regex_v2", types=[*PII_TYPES, "doc"])
def pii_regex_v2(batch: TagBatch):
    spans, _, score = _whole_text(batch)
    return {**spans, "doc": Spans.document(batch.lengths, score)}


@tagger("pii_regex_with_counts_v2", types=[*PII_TYPES, "doc", "doc_count"])
def pii_regex_with_counts_v2(batch: TagBatch):
    spans, counts, score = _whole_text(batch)
    return {**spans, "doc": Spans.document(batch.lengths, score), "doc_count": Spans.document(batch.lengths, counts)}


# ------------------------------------------------------------------ per-paragraph tagger (FastPiiRegex)
def _paragraph_spans(chunk: str, offset: int, kinds: list[str]) -> Iterator[tuple[str, int, int]]:
    """FastPiiRegex on one paragraph (``chunk`` keeps its newline); kinds in upstream's order."""
    for kind in kinds:
        if kind == EMAIL and "@" in chunk:
            for match in _PATTERNS[EMAIL].finditer(chunk):
                addressee, domain = match.group(1).split("@", 1)
                if addressee.strip() != "(" and "." in domain:
                    yield EMAIL, match.start() + offset, match.end() + offset
        elif kind == PHONE and _PRE_PHONE.search(chunk):
            for match in _PATTERNS[PHONE].finditer(chunk):
                yield PHONE, match.start() + offset, match.end() + offset
        elif kind == IP and _PRE_IP.search(chunk):
            for match in _PATTERNS[IP].finditer(chunk):
                if _URL.search(match.group(0)) is None:
                    yield IP, match.start() + offset, match.end() + offset


@tagger("pii_regex_with_counts_fast_v2", types=[*PII_TYPES, "doc_count", "doc_frac"])
def pii_regex_with_counts_fast_v2(batch: TagBatch):
    # a paragraph's match is also one of its document's: only candidate documents are split into paragraphs
    documents, _ = _document_candidates(batch)
    questions = pc.count_substring(batch.text.take(documents), "?").to_numpy(zero_copy_only=False)
    documents = documents[questions <= MAX_QUESTION_MARKS]  # upstream skips documents with more than 10k "?"
    paras = paragraphs(TagBatch(batch.table.take(documents)))
    candidates, hints = _candidates(paras.text)
    collector = _Collector()
    covered = np.zeros(len(batch), dtype=np.int64)
    texts = paras.text.gather(candidates).to_list()
    for position, (index, text) in enumerate(zip(candidates.tolist(), texts)):
        row, start, end = int(documents[paras.rows[index]]), int(paras.starts[index]), int(paras.ends[index])
        chunk = text + "\n" if end - start > len(text) else text  # segments leave the newline out
        for kind, span_start, span_end in _paragraph_spans(chunk, start, [k for k in PII_TYPES if hints[k][position]]):
            collector.add(row, kind, span_start, span_end)
            covered[row] += span_end - span_start
    counts = collector.counts(len(batch))
    lengths = batch.lengths
    # upstream sums the lengths of all spans including the doc_count span itself (len(text))
    fraction = np.where(lengths > 0, (covered + lengths) / np.maximum(lengths, 1), -1.0)
    return {
        **collector.output(),
        "doc_count": Spans.document(lengths, counts),
        "doc_frac": Spans.document(lengths, fraction),
    }
