"""Span edits of a batch: the spans each replacement rule selected, checked and filtered by score.

The stream query returns, per kept row and rule, the selected span lists as JSON; they are decoded
in one call per rule (rows that select nothing are skipped), and anything but ``[start, end, score]``
triples with ``0 <= start <= end`` is an error naming the line (upstream panics and exits 0).
"""

from __future__ import annotations

import itertools

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.errors import InputError
from dolma_sql.formats.lines import LineBatch
from dolma_sql.mixer.documents import decode_json
from dolma_sql.mixer.plan import ShardTask
from dolma_sql.spans import SpanEdits

_NO_SPANS = pa.array(["[]", "null"])
_decode_spans = msgspec.json.Decoder(list[list[tuple[int, int, float]] | None]).decode


def collect_edits(result: pa.Table, kept_rows: np.ndarray, batch: LineBatch, task: ShardTask) -> tuple[SpanEdits, list[int], np.ndarray] | None:
    """Turn each rule's selected spans (JSON) into score-filtered edits, rule by rule (``None``: no edit).

    Returns the edits (rows local to the edited texts), the kept-row positions of the edited
    texts, and the span rule of each edit.
    """
    rows, starts, ends, template_ids, rules = [], [], [], [], []
    templates: dict[tuple[str, ...], int] = {}
    for rule_index, rule in enumerate(task.plan.span_rules):
        column = result.column(f"span_{rule_index}").take(pa.array(kept_rows))
        # most documents select no span: decode only the others
        selecting = np.flatnonzero(pc.and_(pc.is_valid(column), pc.invert(pc.is_in(column, value_set=_NO_SPANS))).to_numpy(zero_copy_only=False))
        counts, flat = _parse_spans(column.take(pa.array(selecting)).to_pylist(), kept_rows[selecting], batch, task, rule_index)
        if not len(flat):
            continue
        row = np.repeat(selecting, counts)
        selected = (flat[:, 2] >= rule.min_score) & (flat[:, 2] < rule.max_score)
        row, flat = row[selected], flat[selected]
        if rule.template is not None:
            ids = np.full(len(row), templates.setdefault(rule.template, len(templates)), dtype=np.int64)
        else:
            values = result.column(f"replacement_{rule_index}").take(pa.array(kept_rows)).to_pylist()
            ids = np.array([templates.setdefault((_jq_replacement(values[r], batch, kept_rows[r], task, rule_index),), len(templates)) for r in row], dtype=np.int64)
        rows.append(row)
        starts.append(flat[:, 0].astype(np.int64))
        ends.append(flat[:, 1].astype(np.int64))
        template_ids.append(ids)
        rules.append(np.full(len(row), rule_index, dtype=np.int64))
    if not rows:
        return None
    row = np.concatenate(rows)
    edited = np.unique(row)
    local = np.searchsorted(edited, row)
    edits = SpanEdits(local, np.concatenate(starts), np.concatenate(ends), np.concatenate(template_ids), list(templates))
    return edits, edited.tolist(), np.concatenate(rules)


def _jq_replacement(value, batch: LineBatch, row: int, task: ShardTask, rule_index: int) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"the jq replacement of streams[{task.plan.index}].span_replacement[{rule_index}] gave {value!r}, not a string",
            path=batch.path,
            line=batch.first_line + int(row),
        )
    return value


def _parse_spans(column: list, kept_rows: np.ndarray, batch: LineBatch, task: ShardTask, rule_index: int) -> tuple[np.ndarray, np.ndarray]:
    """Decode selected span lists into the number of spans of each row and one ``(n, 3)`` array of them.

    A selector matching several lists yields their concatenation.
    """
    joined = b"[" + b",".join(value.encode() if value is not None else b"null" for value in column) + b"]"
    try:
        decoded = [spans or [] for spans in _decode_spans(joined)]
    except msgspec.ValidationError:
        decoded = [_parse_spans_slow(value, batch, kept_rows[i], task, rule_index) for i, value in enumerate(column)]
    counts = np.fromiter(map(len, decoded), dtype=np.int64, count=len(decoded))
    values = itertools.chain.from_iterable(itertools.chain.from_iterable(decoded))  # flattened in C, not span by span
    flat = np.fromiter(values, dtype=np.float64, count=3 * int(counts.sum())).reshape(-1, 3)
    bad = np.flatnonzero((flat[:, 0] < 0) | (flat[:, 1] < flat[:, 0]))
    if len(bad):
        i = int(np.searchsorted(np.cumsum(counts), bad[0], side="right"))
        span = decoded[i][bad[0] - int(counts[:i].sum())]
        _bad_span(list(span), batch, kept_rows[i], task, rule_index, "needs 0 <= start <= end")
    return counts, flat


def _parse_spans_slow(value: str | None, batch: LineBatch, row: int, task: ShardTask, rule_index: int) -> list:
    """One row's selection, decoded in Python to say what is wrong with it (the fast path refused the batch)."""
    if value is None:
        return []
    selected = decode_json(value)
    if selected is None:
        return []
    if not isinstance(selected, list):
        _bad_span(selected, batch, row, task, rule_index, "expected a list of [start, end, score] spans or null")
    if selected and all(isinstance(item, list) and item and all(isinstance(inner, list) for inner in item) for item in selected):
        selected = [span for item in selected for span in item]  # several matched span lists
    spans = []
    for span in selected:
        if (
            not isinstance(span, list)
            or len(span) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in span[:2])
            or not isinstance(span[2], (int, float))
            or isinstance(span[2], bool)
        ):
            _bad_span(span, batch, row, task, rule_index, "expected [start, end, score] with integer offsets")
        spans.append(tuple(span))
    return spans


def _bad_span(span, batch: LineBatch, row: int, task: ShardTask, rule_index: int, expected: str):
    rule = task.plan.stream.span_replacement[rule_index]
    raise InputError(
        f"bad span {msgspec.json.encode(span).decode()} selected by {rule.span!r}: {expected}",
        path=batch.path,
        line=batch.first_line + int(row),
        hint=f"check the attribute that streams[{task.plan.index}].span_replacement[{rule_index}].span points at",
    )
