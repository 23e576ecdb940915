"""Span replacement: a vectorized kernel that rewrites many texts at once.

Semantics (dolma's, with its defects fixed):

* offsets are code points; spans of one text are stable-sorted by start (ties keep the
  order they were given in: rule order, then selection order);
* a span starting before the end of the last *applied* span is skipped (overlapping and
  nested spans are dropped, not merged; adjacent spans both apply);
* a replacement is a template whose ``{}`` stand for the original span text; ``""`` deletes;
* offsets past the end of the text are clamped to it, so an empty or out-of-range span
  inserts its replacement once and never duplicates text (upstream appends the whole text
  again); a span whose end is before its start is rejected by the caller.

The kernel works on the UTF-8 bytes of an Arrow string array: code-point offsets become
byte offsets through the positions of UTF-8 lead bytes, every output text becomes a list of
byte segments (gaps of the original, template literals, span texts), and one ``numpy.take``
gathers all outputs. No per-character or per-span Python runs, except to resolve the rare
texts whose spans overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class SpanEdits:
    """Replacements to apply: edit ``i`` replaces code points ``[start[i], end[i])`` of text ``row[i]``.

    ``templates[template[i]]`` is the replacement split at its ``{}`` placeholders: the
    original span text goes between consecutive pieces (``("[", "]")`` is ``"[{}]"``).
    """

    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    template: np.ndarray
    templates: list[tuple[str, ...]]

    def __len__(self) -> int:
        return len(self.row)

    def subset(self, mask: np.ndarray) -> "SpanEdits":
        """Only the edits where ``mask`` is true (same rows and templates)."""
        return SpanEdits(self.row[mask], self.start[mask], self.end[mask], self.template[mask], self.templates)


def split_template(replacement: str) -> tuple[str, ...]:
    """``"[B]{}[E]"`` -> ``("[B]", "[E]")``: the literal pieces around each ``{}``."""
    return tuple(replacement.split("{}"))


def apply_spans(texts: pa.Array, edits: SpanEdits) -> pa.LargeStringArray:
    """Return ``texts`` with ``edits`` applied (texts without edits are unchanged)."""
    texts = pa.concat_arrays([texts.cast(pa.large_string())]) if len(texts) else texts.cast(pa.large_string())
    if not len(edits):
        return texts
    char_lengths = pc.utf8_length(texts).to_numpy(zero_copy_only=False).astype(np.int64)
    row, start, end, template = _resolve(edits, char_lengths)

    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[: len(texts) + 1]
    data = np.frombuffer(texts.buffers()[2], dtype=np.uint8) if texts.buffers()[2] is not None else np.zeros(0, np.uint8)
    leads = _lead_bytes(data[: offsets[-1]])
    start_byte = _char_to_byte(leads, offsets, row, start)
    end_byte = _char_to_byte(leads, offsets, row, end)

    literal_bytes, piece_offsets = _literal_table(edits.templates)
    source = np.concatenate([data[: offsets[-1]], literal_bytes])
    literal_base = offsets[-1]

    # Segments, in output order: per edit a gap (from the previous applied end), then the template
    # pieces interleaved with the span text; per row a tail after its last edit. Rows without
    # edits become one segment: the whole text.
    seg_row, seg_key, seg_start, seg_len = [], [], [], []
    previous_end = np.where(np.r_[True, row[1:] != row[:-1]], offsets[row], np.r_[0, end_byte[:-1]])
    order = np.arange(len(row), dtype=np.int64)
    stride = 2 * max(len(pieces) for pieces in edits.templates) + 2  # sort keys: gap, then piece/span pairs
    _add(seg_row, seg_key, seg_start, seg_len, row, order * stride, previous_end, start_byte - previous_end)
    for template_id in np.unique(template):
        mine = template == template_id
        pieces = edits.templates[template_id]
        for piece_index, piece in enumerate(pieces):
            base = order[mine] * stride + 1 + 2 * piece_index
            count = mine.sum()
            piece_start = literal_base + piece_offsets[template_id][piece_index]
            _add(seg_row, seg_key, seg_start, seg_len, row[mine], base, np.full(count, piece_start), np.full(count, len(piece.encode())))
            if piece_index < len(pieces) - 1:
                _add(seg_row, seg_key, seg_start, seg_len, row[mine], base + 1, start_byte[mine], end_byte[mine] - start_byte[mine])
    last = np.r_[row[1:] != row[:-1], True]
    edited_rows = row[last]
    _add(seg_row, seg_key, seg_start, seg_len, edited_rows, np.full(len(edited_rows), np.iinfo(np.int64).max), end_byte[last], offsets[edited_rows + 1] - end_byte[last])
    untouched = np.setdiff1d(np.arange(len(texts)), edited_rows)
    _add(seg_row, seg_key, seg_start, seg_len, untouched, np.zeros(len(untouched), np.int64), offsets[untouched], offsets[untouched + 1] - offsets[untouched])

    seg_row, seg_key, seg_start, seg_len = (np.concatenate(parts) for parts in (seg_row, seg_key, seg_start, seg_len))
    sort = np.lexsort((seg_key, seg_row))
    seg_row, seg_start, seg_len = seg_row[sort], seg_start[sort], seg_len[sort]
    out_lengths = np.bincount(seg_row, weights=seg_len, minlength=len(texts)).astype(np.int64)
    out_offsets = np.r_[0, np.cumsum(out_lengths)].astype(np.int64)
    seg_out = np.r_[0, np.cumsum(seg_len)[:-1]].astype(np.int64)
    gather = np.repeat(seg_start - seg_out, seg_len) + np.arange(out_offsets[-1], dtype=np.int64)
    out = source[gather]
    return pa.LargeStringArray.from_buffers(len(texts), pa.py_buffer(out_offsets), pa.py_buffer(out), None)


def _add(rows, keys, starts, lengths, row, key, start, length) -> None:
    rows.append(np.asarray(row, np.int64))
    keys.append(np.asarray(key, np.int64))
    starts.append(np.asarray(start, np.int64))
    lengths.append(np.asarray(length, np.int64))


def _resolve(edits: SpanEdits, char_lengths: np.ndarray):
    """Clamp, stable-sort by (row, start), and drop spans that start inside an applied span."""
    row = np.asarray(edits.row, np.int64)
    limit = char_lengths[row]
    start = np.clip(np.asarray(edits.start, np.int64), 0, limit)
    end = np.clip(np.asarray(edits.end, np.int64), 0, limit)
    template = np.asarray(edits.template, np.int64)
    order = np.lexsort((np.arange(len(row)), start, row))
    row, start, end, template = row[order], start[order], end[order], template[order]

    # Fast path: a span conflicts only if it starts before the running max end of the
    # spans before it in the same row; rows with no conflict keep every span.
    group_start = np.r_[True, row[1:] != row[:-1]]
    shift = (row * (int(char_lengths.max(initial=0)) + 1)).astype(np.int64)
    running = np.maximum.accumulate(end + shift) - shift
    previous_max = np.where(group_start, -1, np.r_[-1, running[:-1]])
    conflict = start < previous_max
    keep = np.ones(len(row), dtype=bool)
    for conflicted_row in np.unique(row[conflict]):
        indices = np.flatnonzero(row == conflicted_row)
        applied_end = -1
        for index in indices:  # only rows whose spans overlap: drop the ones inside an applied span
            if start[index] < applied_end:
                keep[index] = False
            else:
                applied_end = end[index]
    return row[keep], start[keep], end[keep], template[keep]


def _lead_bytes(data: np.ndarray) -> np.ndarray | None:
    """Positions of the UTF-8 lead bytes (code point starts), or None when the data is ASCII."""
    if not (data >= 0x80).any():
        return None
    return np.flatnonzero((data & 0xC0) != 0x80)


def _char_to_byte(leads: np.ndarray | None, offsets: np.ndarray, row: np.ndarray, char: np.ndarray) -> np.ndarray:
    """Byte offset of code point ``char`` in text ``row`` (``char`` may equal the text's length)."""
    text_start = offsets[row]
    text_end = offsets[row + 1]
    if leads is None:
        return text_start + char
    position = np.searchsorted(leads, text_start) + char
    at_end = position >= np.searchsorted(leads, text_end)
    return np.where(at_end, text_end, leads[np.minimum(position, len(leads) - 1)])


def _literal_table(templates: list[tuple[str, ...]]) -> tuple[np.ndarray, list[list[int]]]:
    """All template pieces as one byte buffer, and each piece's offset into it."""
    chunks: list[bytes] = []
    offsets: list[list[int]] = []
    cursor = 0
    for pieces in templates:
        piece_offsets = []
        for piece in pieces:
            encoded = piece.encode()
            piece_offsets.append(cursor)
            chunks.append(encoded)
            cursor += len(encoded)
        offsets.append(piece_offsets)
    return np.frombuffer(b"".join(chunks), dtype=np.uint8), offsets
