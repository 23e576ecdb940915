"""Span replacement: a vectorized kernel that rewrites many texts at once.

Semantics (dolma's, with its defects fixed):

* offsets are code points; spans of one text are stable-sorted by start (ties keep the
  order they were given in: rule order, then selection order);
* a span starting before the end of the last *applied* span, or at its start, is skipped
  (overlapping and nested spans are dropped, not merged, and of spans starting at one
  position only the first applies, empty ones too; adjacent spans both apply);
* a replacement is a template whose ``{}`` stand for the original span text; ``""`` deletes;
* offsets past the end of the text are clamped to it, so an empty or out-of-range span
  inserts its replacement once and never duplicates text (upstream appends the whole text
  again); a span whose end is before its start is rejected by the caller.

The kernel works on bytes, so that the mixer can edit its documents' texts as the JSON string literals
it read them as, never decoding or escaping one: a text is a byte range of one buffer, in UTF-8 or
as a literal msgspec writes. Code points become byte offsets through the sorted positions of the few
bytes that begin none (UTF-8 continuation bytes; in a literal, an escape's bytes after its backslash).
Spans are sorted and the overlapping ones dropped with numpy; every output text is then a run of byte
ranges (the gaps between its spans, the replacements, its tail) gathered by one Arrow ``take``. No
per-character or per-span Python runs, except to resolve the rare texts whose spans overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.formats.lines import line_offsets, positions_of

_BACKSLASH = ord("\\")


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
    texts = texts.cast(pa.large_string())
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if not len(edits):
        return texts
    buffer, offsets = _splice(texts.buffers()[2] or pa.py_buffer(b""), line_offsets(texts), edits, literals=False)
    return pa.LargeStringArray.from_buffers(len(texts), pa.py_buffer(offsets), buffer)


def apply_spans_to_literals(literals: list, edits: SpanEdits) -> list[msgspec.Raw]:
    """:func:`apply_spans` for texts given as the JSON string literals msgspec writes for them (quoted,
    escaped, as bytes or ``msgspec.Raw``): each edited text's literal, which an encoder copies verbatim."""
    bounds = np.zeros(len(literals) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, literals), dtype=np.int64, count=len(literals)), out=bounds[1:])
    buffer, offsets = _splice(pa.py_buffer(b"".join(literals)), bounds, edits, literals=True)
    view = memoryview(buffer)
    return [msgspec.Raw(view[start:end]) for start, end in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


def _splice(data: pa.Buffer, bounds: np.ndarray, edits: SpanEdits, *, literals: bool) -> tuple[pa.Buffer, np.ndarray]:
    """The texts ``data[bounds[i]:bounds[i + 1]]`` (``literals``: JSON string literals) with ``edits`` applied,
    as one buffer and the offsets of its texts."""
    texts = len(bounds) - 1
    skipped = _bytes_beginning_no_code_point(np.frombuffer(data, dtype=np.uint8), literals)
    first, last = (bounds[:-1] + 1, bounds[1:] - 1) if literals else (bounds[:-1], bounds[1:])  # a literal's text is inside its quotes
    first_code_point = first - np.searchsorted(skipped, first)
    code_points = last - np.searchsorted(skipped, last) - first_code_point
    row, start, end, template = _resolve(edits, code_points)
    code_points_before = skipped - np.arange(len(skipped))  # before each skipped byte: nondecreasing

    def byte_offset(code_point: np.ndarray) -> np.ndarray:
        """Where the ``code_point``-th code point of ``data`` begins (the end of its text for one past its last)."""
        return code_point + np.searchsorted(code_points_before, code_point, side="right")

    # the texts cut into segments: each text's gaps and spans in turn, then its tail
    edit = np.arange(len(row), dtype=np.int64)
    edits_before = np.zeros(texts + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=texts), out=edits_before[1:])
    text_segment = np.arange(texts, dtype=np.int64) + 2 * edits_before[:-1]
    span_segment = row + 2 * edit + 1
    cuts = np.empty(texts + 2 * len(row) + 1, dtype=np.int64)
    cuts[text_segment] = bounds[:-1]
    cuts[span_segment] = byte_offset(first_code_point[row] + start)
    cuts[span_segment + 1] = byte_offset(first_code_point[row] + end)
    cuts[-1] = bounds[-1]
    segments = len(cuts) - 1
    pieces, expansion, expansion_start, expansion_length = _template_pieces(edits.templates, literals)

    # the output in blocks: per text, each edit's block (the gap before it, then its replacement), then its tail
    length = expansion_length[template]  # items of each edit's replacement
    edit_block = edit + row
    tail_block = edits_before[1:] + np.arange(texts, dtype=np.int64)
    block_length = np.ones(texts + len(row), dtype=np.int64)
    block_length[edit_block] = 1 + length
    block_first = np.zeros(len(block_length) + 1, dtype=np.int64)
    np.cumsum(block_length, out=block_first[1:])
    take = np.empty(block_first[-1], dtype=np.int64)
    take[block_first[edit_block]] = span_segment - 1
    take[block_first[tail_block]] = text_segment + 2 * (edits_before[1:] - edits_before[:-1])
    # a replacement's items: its template's pieces, with the span's own segment at each ``{}``
    item_edit = np.repeat(edit, length)
    item = np.arange(len(item_edit), dtype=np.int64) - np.repeat(np.cumsum(length) - length, length)  # its place in its replacement
    code = expansion[expansion_start[template[item_edit]] + item]
    take[block_first[edit_block[item_edit]] + 1 + item] = np.where(code < 0, span_segment[item_edit], segments + code)

    source = pa.Array.from_buffers(pa.large_binary(), segments, [None, pa.py_buffer(cuts), data])
    joined = pc.take(pa.concat_arrays([source, pa.array(pieces, pa.large_binary())]), pa.array(take))
    first_block = edits_before + np.arange(texts + 1)  # of each text (one past the last for the end)
    offsets = np.frombuffer(joined.buffers()[1], dtype=np.int64, count=len(joined) + 1)[block_first[first_block]]
    return joined.buffers()[2] or pa.py_buffer(b""), offsets


def _template_pieces(templates: list[tuple[str, ...]], literals: bool) -> tuple[list[bytes], np.ndarray, np.ndarray, np.ndarray]:
    """Every template's pieces as bytes (escaped as in a JSON string for ``literals``), and each template's
    expansion: the indexes of its pieces in order, with -1 (its span's text) at every ``{}``."""
    pieces: list[bytes] = []
    expansion: list[int] = []
    starts, lengths = [], []
    for template in templates:
        starts.append(len(expansion))
        for position, piece in enumerate(template):
            if position:
                expansion.append(-1)
            expansion.append(len(pieces))
            pieces.append(msgspec.json.encode(piece)[1:-1] if literals else piece.encode())
        lengths.append(len(expansion) - starts[-1])
    as_array = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return pieces, as_array(expansion), as_array(starts), as_array(lengths)


def _bytes_beginning_no_code_point(data: np.ndarray, literals: bool) -> np.ndarray:
    """The sorted positions of the bytes of ``data`` that begin no code point: UTF-8 continuation bytes and,
    in JSON string literals, an escape's bytes after its backslash (one, or five for ``\\u``)."""
    continuation = positions_of(data.view(np.int8), -64, compare=np.less)  # 0x80-0xBF
    backslashes = positions_of(data, _BACKSLASH) if literals else ()
    if not len(backslashes):
        return continuation
    index = np.arange(len(backslashes))
    run_start = np.r_[True, np.diff(backslashes) != 1]
    escapes = backslashes[(index - np.maximum.accumulate(np.where(run_start, index, 0))) % 2 == 0]  # a run's 1st, 3rd, ... backslash
    unicode = escapes[data[escapes + 1] == ord("u")]
    return np.sort(np.concatenate([continuation, escapes + 1, *(unicode + k for k in range(2, 6))]))


def _resolve(edits: SpanEdits, char_lengths: np.ndarray):
    """Clamp, stable-sort by (row, start), and drop spans that start inside an applied span or at its start."""
    row = np.asarray(edits.row, np.int64)
    limit = char_lengths[row]
    start = np.clip(np.asarray(edits.start, np.int64), 0, limit)
    end = np.clip(np.asarray(edits.end, np.int64), 0, limit)
    template = np.asarray(edits.template, np.int64)
    widest = int(char_lengths.max(initial=0)) + 1
    if len(char_lengths) * widest < 1 << 62:  # one stable sort on a combined key: a third of lexsort's time
        order = np.argsort(row * widest + start, kind="stable")
    else:
        order = np.lexsort((np.arange(len(row)), start, row))
    row, start, end, template = row[order], start[order], end[order], template[order]

    # Fast path: a span conflicts only if it starts before the running max end of the
    # spans before it in the same row; rows with no conflict keep every span.
    group_start = np.r_[True, row[1:] != row[:-1]]
    shift = (row * widest).astype(np.int64)
    running = np.maximum.accumulate(end + shift) - shift
    previous_max = np.where(group_start, -1, np.r_[-1, running[:-1]])
    same_start = ~group_start & (start == np.r_[-1, start[:-1]])  # only empty spans add conflicts here
    conflict = (start < previous_max) | same_start
    keep = np.ones(len(row), dtype=bool)
    conflicted = np.unique(row[conflict])
    firsts, stops = np.searchsorted(row, conflicted), np.searchsorted(row, conflicted, side="right")  # row is sorted
    for first, stop in zip(firsts.tolist(), stops.tolist()):
        applied_start = applied_end = -1
        # only rows whose spans overlap: drop the ones inside an applied span or at its start
        for index, (span_start, span_end) in enumerate(zip(start[first:stop].tolist(), end[first:stop].tolist()), first):
            if span_start < applied_end or span_start == applied_start:
                keep[index] = False
            else:
                applied_start, applied_end = span_start, span_end
    return row[keep], start[keep], end[keep], template[keep]


