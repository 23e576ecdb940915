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

The kernel is a Polars pipeline over all texts of a batch at once: spans are sorted and the
overlapping ones dropped with numpy, then every output text is assembled from pieces (the gaps
of the original, found with code-point ``str.slice``; the replacements, with ``{}`` filled by
``concat_str``) joined per text. No per-character or per-span Python runs, except to resolve
the rare texts whose spans overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from dolma_sql.formats.lines import line_offsets


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
    if not len(edits):
        return texts
    source = pl.Series("text", texts)
    char_lengths = source.str.len_chars().fill_null(0).to_numpy().astype(np.int64)  # 4x faster than Arrow's utf8_length
    row, start, end, template = _resolve(edits, char_lengths)
    order = np.arange(len(row), dtype=np.int64)
    previous_end = np.where(np.r_[True, row[1:] != row[:-1]], 0, np.r_[0, end[:-1]])
    last = np.r_[row[1:] != row[:-1], True]
    untouched = np.ones(len(texts), dtype=bool)
    untouched[row] = False
    untouched = np.flatnonzero(untouched)

    # every output text is a run of pieces (gap, replacement, …, tail; or the untouched text):
    # gathered in output order, the texts are consecutive slices of the pieces' one buffer
    gaps = source.gather(row).str.slice(previous_end, start - previous_end)
    tails = source.gather(row[last]).str.slice(end[last])
    replacements = _replacements(source, row, start, end, template, edits.templates)
    pieces = pl.concat([gaps, replacements, tails, source.gather(untouched)])
    piece_row = np.concatenate([row, row, row[last], untouched])
    piece_rank = np.concatenate([2 * order, 2 * order + 1, np.full(int(last.sum()), 2 * len(row)), np.zeros(len(untouched), np.int64)])
    in_order = np.lexsort((piece_rank, piece_row))
    joined = pieces.gather(in_order).to_arrow().cast(pa.large_string())
    joined = joined.combine_chunks() if isinstance(joined, pa.ChunkedArray) else joined
    first_piece = np.searchsorted(piece_row[in_order], np.arange(len(texts) + 1))
    offsets = line_offsets(joined)[first_piece]
    return pa.LargeStringArray.from_buffers(len(texts), pa.py_buffer(offsets), joined.buffers()[2])


def _replacements(source: pl.Series, row, start, end, template, templates: list[tuple[str, ...]]) -> pl.Series:
    """Each edit's replacement text: its template's pieces with the span text at every ``{}``."""
    literal = pl.Series([pieces[0] if len(pieces) == 1 else None for pieces in templates], dtype=pl.String)
    frame = pl.DataFrame({"template": template, "replacement": literal.gather(template)})
    with_text = [i for i in np.unique(template) if len(templates[i]) > 1]
    if not with_text:
        return frame["replacement"]
    span = source.gather(row).str.slice(start, end - start)
    replacement = pl.col("replacement")
    for i in with_text:
        parts: list[pl.Expr] = []
        for position, piece in enumerate(templates[i]):
            if position:
                parts.append(pl.lit(span))
            parts.append(pl.lit(piece))
        replacement = pl.when(pl.col("template") == i).then(pl.concat_str(parts)).otherwise(replacement)
    return frame.select(replacement.alias("replacement"))["replacement"]


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


