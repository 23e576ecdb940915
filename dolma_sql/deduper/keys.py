"""The keys of one batch of documents, in the exact order dolma checks them.

A batch has *units* (a keyed document, or a paragraph, with its code-point span) and *keys* (the
fingerprints checked for each unit: the unit's whole string, or its sampled n-grams).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.deduper.fingerprints import Fingerprinter
from dolma_sql.deduper.plan import Settings
from dolma_sql.text import WORD_PATTERN, count_words

KIND_WHOLE, KIND_NGRAMS, KIND_FALLBACK, KIND_SILENT = 0, 1, 2, 3
"""Units: a whole key (document or paragraph); a paragraph scored by n-gram overlap; a short paragraph
hashed whole and scored 1.0/0.0; a paragraph without any n-gram under ``skip_short_paragraphs`` (never reported)."""


@dataclass
class BatchKeys:
    """Units (``doc`` is the row in the batch) and keys (``key_unit`` is the unit, ``whole`` a whole-string key).

    ``writes_empty[row]``: the row gets ``"<attribute>":[]`` when none of its units is a duplicate (dolma's
    rule: in paragraph mode every non-empty text, in document mode every document it skipped).
    """

    writes_empty: np.ndarray
    doc: np.ndarray
    start: np.ndarray
    end: np.ndarray
    nbytes: np.ndarray
    count: np.ndarray
    kind: np.ndarray
    fingerprint: np.ndarray
    key_unit: np.ndarray
    whole: np.ndarray


def batch_keys(keys: pa.Array, settings: Settings, fingerprinter: Fingerprinter) -> BatchKeys:
    """The units and keys of one batch of key strings (the documents' texts in paragraph mode)."""
    if settings.mode == "documents":
        return _document_keys(keys, settings, fingerprinter)
    return _paragraph_keys(keys, settings, fingerprinter)


def _in_partition(fingerprint: np.ndarray, settings: Settings) -> np.ndarray:
    if settings.num_partitions == 1:
        return np.ones(len(fingerprint), dtype=bool)
    return fingerprint[:, 0] % np.uint64(settings.num_partitions) == np.uint64(settings.partition_index)


def _skipped(strings: pa.Array, lengths: np.ndarray, settings: Settings) -> np.ndarray:
    """dolma's filters (min_length, min_words, skip_empty) as independent conditions (upstream's chain
    makes any ``min_words > 0`` skip dedup entirely)."""
    skip = lengths < settings.min_length
    if settings.min_words > 0:
        skip |= count_words(strings) < settings.min_words
    if settings.skip_empty:
        skip |= (lengths == 0) | all_space(strings)
    return skip


def all_space(strings: pa.Array) -> np.ndarray:
    """Arrow's ``utf8_is_space`` (a non-empty string of white space only), asked only of the strings whose first
    byte is a control character, a space or part of a non-ASCII character: no other can be all space."""
    space = np.zeros(len(strings), dtype=bool)
    offsets_buffer, data_buffer = strings.buffers()[1:3]
    if not len(strings) or data_buffer is None or not data_buffer.size:
        return space
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if pa.types.is_large_string(strings.type) else np.int32)
    offsets = offsets[strings.offset : strings.offset + len(strings) + 1]
    nonempty = offsets[1:] > offsets[:-1]
    first = np.frombuffer(data_buffer, dtype=np.uint8)[np.where(nonempty, offsets[:-1], 0)]
    candidates = np.flatnonzero(nonempty & ((first <= 0x20) | (first >= 0x7F)))
    if len(candidates):
        space[candidates] = pc.utf8_is_space(strings.take(pa.array(candidates))).to_numpy(zero_copy_only=False)
    return space


def _whole_keys(writes_empty, doc, start, end, nbytes, fingerprint) -> BatchKeys:
    """One unit per key, each its own whole string."""
    return BatchKeys(
        writes_empty=writes_empty, doc=doc, start=start, end=end, nbytes=nbytes,
        count=np.ones(len(doc), np.int64), kind=np.full(len(doc), KIND_WHOLE, np.int8),
        fingerprint=fingerprint, key_unit=np.arange(len(doc), dtype=np.int64), whole=np.ones(len(doc), bool),
    )  # fmt: skip


def _document_keys(keys: pa.Array, settings: Settings, fingerprinter: Fingerprinter) -> BatchKeys:
    fingerprint, lengths = fingerprinter.strings_and_lengths(keys)
    skip = _skipped(keys, lengths, settings)
    checked = ~skip & _in_partition(fingerprint, settings)
    doc = np.flatnonzero(checked)
    nbytes = pc.binary_length(keys).to_numpy()[doc]
    return _whole_keys(~checked, doc, np.zeros(len(doc), np.int64), lengths[doc], nbytes, fingerprint[doc])


def paragraph_spans(text_lengths: np.ndarray, paragraph_lengths: np.ndarray, paragraph_doc: np.ndarray, separator_length: int):
    """Code-point ``[start, end)`` of each paragraph, by dolma's rule: a span includes its separator
    unless the separator ends the text, and each span starts where the previous one ended."""
    count = len(paragraph_lengths)
    last = np.ones(count, dtype=bool)
    last[:-1] = paragraph_doc[1:] != paragraph_doc[:-1]
    first = np.ones(count, dtype=bool)
    first[1:] = paragraph_doc[1:] != paragraph_doc[:-1]
    step = paragraph_lengths + np.where(last, 0, separator_length)
    true_end = _cumsum_by_group(step, first)
    true_start = true_end - step
    with_separator = ~last & (true_start + paragraph_lengths + separator_length < text_lengths[paragraph_doc])
    end = _cumsum_by_group(paragraph_lengths + np.where(with_separator, separator_length, 0), first)
    start = end - paragraph_lengths - np.where(with_separator, separator_length, 0)
    return start, end


def _cumsum_by_group(values: np.ndarray, group_start: np.ndarray) -> np.ndarray:
    total = np.cumsum(values)
    base = (total - values)[group_start]
    return total - np.repeat(base, np.diff(np.append(np.flatnonzero(group_start), len(values))))


def _paragraph_keys(texts: pa.Array, settings: Settings, fingerprinter: Fingerprinter) -> BatchKeys:
    split = pc.split_pattern(texts, settings.separator)
    paragraphs = pc.list_flatten(split)
    paragraph_doc = pc.list_parent_indices(split).to_numpy().astype(np.int64)
    if settings.ngram_length == 0:  # every paragraph is a key
        fingerprint, lengths = fingerprinter.strings_and_lengths(paragraphs)
    else:
        lengths = pc.utf8_length(paragraphs).to_numpy().astype(np.int64)
    text_lengths = _text_lengths(lengths, np.diff(split.offsets.to_numpy()), len(settings.separator))
    start, end = paragraph_spans(text_lengths, lengths, paragraph_doc, len(settings.separator))
    keep = (text_lengths[paragraph_doc] > 0) & ~_skipped(paragraphs, lengths, settings)
    nbytes = pc.binary_length(paragraphs).to_numpy().astype(np.int64)
    writes_empty = text_lengths > 0
    if settings.ngram_length == 0:
        index = np.flatnonzero(keep & _in_partition(fingerprint, settings))
        return _whole_keys(writes_empty, paragraph_doc[index], start[index], end[index], nbytes[index], fingerprint[index])
    index = np.flatnonzero(keep)
    count, kind, fingerprint, key_unit, whole = _ngram_keys(paragraphs.take(pa.array(index)), settings, fingerprinter)
    return BatchKeys(
        writes_empty=writes_empty, doc=paragraph_doc[index], start=start[index], end=end[index], nbytes=nbytes[index],
        count=count, kind=kind, fingerprint=fingerprint, key_unit=key_unit, whole=whole,
    )  # fmt: skip


def _text_lengths(paragraph_lengths: np.ndarray, paragraphs_per_text: np.ndarray, separator_length: int) -> np.ndarray:
    """Each text's length in code points: its paragraphs' and the separators between them (every text,
    the empty one too, splits into at least one paragraph), without scanning the texts again."""
    first = np.cumsum(paragraphs_per_text) - paragraphs_per_text
    return np.add.reduceat(paragraph_lengths, first) + (paragraphs_per_text - 1) * separator_length if len(first) else np.zeros(0, np.int64)


def _ngram_keys(paragraphs: pa.Array, settings: Settings, fingerprinter: Fingerprinter):
    """Keys of n-gram mode in dolma's order: each paragraph's sampled windows, then (if it has fewer than two)
    the whole paragraph. Sampled window starts are 0, 1, 1+stride, 1+2*stride... (dolma's ``last == 0`` quirk)."""
    import polars as pl

    length, stride = settings.ngram_length, settings.stride
    tokens = pl.from_arrow(paragraphs).str.extract_all(WORD_PATTERN)
    token_counts = tokens.list.len().fill_null(0).to_numpy().astype(np.int64)
    flat_tokens = tokens.explode().drop_nulls().to_arrow()
    token_hashes = fingerprinter.raw(flat_tokens)
    windows = np.maximum(token_counts - length + 1, 0)
    if stride <= 1:
        count = windows
    else:
        count = np.where(windows >= 1, 1 + np.where(windows >= 2, (windows - 2) // stride + 1, 0), 0)
    paragraph_of_window = np.repeat(np.arange(len(count)), count)
    rank = np.arange(len(paragraph_of_window)) - np.repeat(np.cumsum(count) - count, count)
    offset_in_paragraph = rank if stride <= 1 else np.where(rank == 0, 0, 1 + (rank - 1) * stride)
    token_start = np.cumsum(token_counts) - token_counts
    window_fingerprint = fingerprinter.windows(token_hashes, token_start[paragraph_of_window] + offset_in_paragraph, length)
    inside = _in_partition(window_fingerprint, settings)
    fallback = (count < 2) & (not settings.skip_short_paragraphs)
    # with skip_short_paragraphs dolma still scores a one-window paragraph (0/1 or 1/1); zero windows give NaN: never reported
    kind = np.where(fallback, KIND_FALLBACK, np.where(count == 0, KIND_SILENT, KIND_NGRAMS)).astype(np.int8)
    # interleave: per paragraph, its in-partition windows, then its whole key (fallback only)
    kept_windows = np.flatnonzero(inside)
    per_paragraph = np.bincount(paragraph_of_window[kept_windows], minlength=len(count)) + fallback
    slot_start = np.cumsum(per_paragraph) - per_paragraph
    total = int(per_paragraph.sum())
    fingerprint = np.zeros((total, fingerprinter.lanes), dtype=np.uint64)
    key_unit = np.zeros(total, dtype=np.int64)
    whole = np.zeros(total, dtype=bool)
    window_paragraph = paragraph_of_window[kept_windows]
    windows_per_paragraph = np.bincount(window_paragraph, minlength=len(count))
    window_rank = np.arange(len(kept_windows)) - np.repeat(np.cumsum(windows_per_paragraph) - windows_per_paragraph, windows_per_paragraph)
    slots = slot_start[window_paragraph] + window_rank
    fingerprint[slots] = window_fingerprint[kept_windows]
    key_unit[slots] = window_paragraph
    fallback_index = np.flatnonzero(fallback)
    whole_slots = slot_start[fallback_index] + per_paragraph[fallback_index] - 1
    fingerprint[whole_slots] = fingerprinter.strings(paragraphs.take(pa.array(fallback_index)))
    key_unit[whole_slots] = fallback_index
    whole[whole_slots] = True
    return count, kind, fingerprint, key_unit, whole
