"""The one attribute codec: spans per span type, and dolma's attribute lines.

An attribute file is line-aligned with its documents file; each line is
``{"id":…,"attributes":{"<key>":[[start,end,score],…],…},"source":…}`` with offsets in code points
and scores rounded to 5 decimals, encoded column-wise with Arrow string kernels exactly as dolma
writes them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.formats.lines import line_bytes

SCORE_DIGITS = 5
"""Scores are rounded to 5 decimals (dolma's TAGGER_SCORE_PRECISION)."""


@dataclass
class Spans:
    """Spans of one type over a batch: row ``rows[i]`` has span ``[starts[i], ends[i], scores[i]]``.

    ``rows`` is ascending; spans of one row keep the order the tagger emitted them in.
    """

    rows: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    scores: np.ndarray

    def __post_init__(self) -> None:
        self.rows = np.asarray(self.rows, dtype=np.int64)
        self.starts = np.asarray(self.starts, dtype=np.int64)
        self.ends = np.asarray(self.ends, dtype=np.int64)
        self.scores = np.asarray(self.scores, dtype=np.float64)

    def __len__(self) -> int:
        return len(self.rows)

    @classmethod
    def empty(cls) -> Spans:
        nothing = np.zeros(0, dtype=np.int64)
        return cls(nothing, nothing, nothing, nothing.astype(np.float64))

    @classmethod
    def document(cls, lengths: np.ndarray, scores, where: np.ndarray | None = None) -> Spans:
        """One ``[0, len(text), score]`` span per row (only where ``where`` is true, if given)."""
        scores = np.broadcast_to(np.asarray(scores, dtype=np.float64), lengths.shape)
        rows = np.arange(len(lengths), dtype=np.int64)
        if where is not None:
            rows, lengths, scores = rows[where], lengths[where], scores[where]
        return cls(rows, np.zeros(len(rows), dtype=np.int64), lengths, scores)

    def take(self, mask: np.ndarray) -> Spans:
        return Spans(self.rows[mask], self.starts[mask], self.ends[mask], self.scores[mask])

    @classmethod
    def concat(cls, parts: Sequence[Spans]) -> Spans:
        """Merge span lists of one type, keeping each row's spans in ``parts`` order (a stable sort by row)."""
        parts = [part for part in parts if len(part)]
        if not parts:
            return cls.empty()
        if len(parts) == 1:
            return parts[0]
        rows = np.concatenate([p.rows for p in parts])
        order = np.argsort(rows, kind="stable")
        return cls(
            rows[order],
            np.concatenate([p.starts for p in parts])[order],
            np.concatenate([p.ends for p in parts])[order],
            np.concatenate([p.scores for p in parts])[order],
        )

    def per_row(self, n_rows: int) -> np.ndarray:
        return np.bincount(self.rows, minlength=n_rows)



def round_scores(values: np.ndarray) -> np.ndarray:
    """``round(x, 5)`` exactly as Python rounds (correctly rounded decimal, half to even).

    numpy's scale-and-rint is exact except when ``x * 1e5`` lands within rounding error of a
    half; those few values are re-rounded by Python.
    """
    values = np.asarray(values, dtype=np.float64)
    rounded = np.round(values, SCORE_DIGITS)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * 10.0**SCORE_DIGITS
        risky = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-3
    for index in np.flatnonzero(risky):
        rounded[index] = round(float(values[index]), SCORE_DIGITS)
    # Python rounds -0.00000x to -0.0 as numpy does; keep its sign handling
    return rounded


PLAIN_FLOATS = (1e-4, 1e10)
"""Magnitudes for which Arrow's shortest float text is msgspec's, but for the ``.0`` of an integral value."""


def format_floats(values: np.ndarray) -> pa.Array:
    """JSON text of each float as msgspec (dolma's encoder) writes it, e.g. ``5.0``, ``0.00004``.

    Each distinct value is written once. Arrow writes the same shortest digits for zero and magnitudes
    in :data:`PLAIN_FLOATS` (an integral value lacks msgspec's ``.0``); msgspec writes the others
    (exponents, NaN, infinities) one by one.
    """
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
    encoded = pc.dictionary_encode(pa.array(bits))  # by bit pattern: -0.0 and each NaN keep their own text
    distinct = encoded.dictionary.to_numpy().view(np.float64)
    texts = pc.cast(pa.array(distinct), pa.large_string())
    magnitude = np.abs(distinct)
    plain = ((magnitude >= PLAIN_FLOATS[0]) & (magnitude < PLAIN_FLOATS[1])) | (distinct == 0)
    integral = plain & (np.floor(distinct) == distinct)
    if integral.any():
        texts = pc.if_else(pa.array(integral), _concat(texts, ".0"), texts)
    if not plain.all():
        others = [msgspec.json.encode(float(v)).decode() for v in distinct[~plain]]
        texts = pc.replace_with_mask(texts, pa.array(~plain), pa.array(others, pa.large_string()))
    return texts.take(encoded.indices)


def _lit(text: str) -> pa.Scalar:
    return pa.scalar(text, pa.large_string())


def _concat(*parts) -> pa.Array:
    """Element-wise concatenation of string arrays and literals (adjacent literals joined first)."""
    merged: list = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    return pc.binary_join_element_wise(*[_lit(p) if isinstance(p, str) else p for p in merged], _lit(""))


def _int_text(values: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(values, pa.int64()), pa.large_string())


def rounded_scores(scores: np.ndarray) -> pa.Array:
    """Scores as taggers write them: rounded to 5 decimals, in msgspec's float text."""
    return format_floats(round_scores(scores))


def encode_attribute_fields(
    n_rows: int, keyed: Sequence[tuple[str, Spans, bool | np.ndarray]], *, score_text: Callable[[np.ndarray], pa.Array] = rounded_scores
) -> pa.Array:
    """The ``attributes`` object of each row as JSON text.

    ``keyed`` lists ``(key, spans, always)`` in key order; a key with no span in a row is left
    out of that row unless ``always`` (a tagger default; or, per row, a boolean array), which writes
    ``"key":[]``. ``score_text`` writes the scores (dedupe writes dolma's deduper's: ``1`` for a whole match).
    """
    pieces: list = []  # JSON text arrays and literals, joined once per row at the end
    offsets_text = _IntTexts()
    for key, spans, always in keyed:
        if not len(spans) and not np.any(always):
            continue
        counts = spans.per_row(n_rows)
        starts = "0" if not spans.starts.any() else offsets_text(spans.starts)
        item = ["[", starts, ",", offsets_text(spans.ends), ",", score_text(spans.scores), "]"]
        prefix = "," + json.dumps(key) + ":["
        if len(spans) == n_rows and np.all(counts == 1):  # one span in every row (a document score): its parts join the rows'
            pieces += [prefix, *item, "]"]
            continue
        piece = _concat(prefix, _joined_per_row(_concat(*item), counts), "]")
        written = (counts > 0) | always
        if not np.all(written):
            piece = pc.if_else(pa.array(written), piece, _lit(""))
        pieces.append(piece)
    if not pieces:
        return pa.array(["{}"] * n_rows, pa.large_string())
    if isinstance(pieces[0], str):  # the first key is in every row: its comma is dropped here, not from each row
        return _concat("{" + pieces[0][1:], *pieces[1:], "}")
    return _concat("{", pc.utf8_slice_codeunits(_concat(*pieces), 1), "}")


class _IntTexts:
    """Decimal text of integer arrays, each distinct array written once (the lengths of documents end many keys' spans)."""

    def __init__(self) -> None:
        self._texts: dict[bytes, pa.Array] = {}

    def __call__(self, values: np.ndarray) -> pa.Array:
        key = values.tobytes()
        if key not in self._texts:
            self._texts[key] = _int_text(values)
        return self._texts[key]


def _joined_per_row(items: pa.Array, counts: np.ndarray) -> pa.Array:
    """Each row's ``items`` (``counts`` of them, rows in order) joined with commas; ``""`` for a row without any."""
    if len(items) == len(counts) and np.all(counts == 1):  # one item a row (a document-level score): nothing to join
        return items
    if not np.any(counts > 1):
        return pc.fill_null(items.take(pa.array(np.cumsum(counts) - 1, mask=counts == 0)), _lit(""))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return pc.binary_join(pa.LargeListArray.from_arrays(pa.array(offsets), items), _lit(","))


_NEEDS_ESCAPE = r'["\\\x00-\x1f]'


def json_strings(values: pa.Array) -> pa.Array:
    """JSON string literals of ``values`` (null -> ``""``), escaped as msgspec escapes them."""
    values = pc.fill_null(values.cast(pa.large_string()), "")
    quoted = _concat('"', values, '"')
    special = pc.match_substring_regex(values, _NEEDS_ESCAPE)
    if not pc.any(special).as_py():
        return quoted
    indices = np.flatnonzero(special.to_numpy(zero_copy_only=False))
    escaped = [msgspec.json.encode(values[int(i)].as_py()).decode() for i in indices]
    return pc.replace_with_mask(quoted, special, pa.array(escaped, pa.large_string()))


def encode_rows(ids: pa.Array, attributes: pa.Array, sources: pa.Array) -> bytes:
    """``{"id":…,"attributes":{…},"source":…}\\n`` per row (dolma's field order), as one byte string."""
    return encode_objects([("id", json_strings(ids)), ("attributes", attributes), ("source", json_strings(sources))])


def encode_objects(fields: Sequence[tuple[str, pa.Array]]) -> bytes:
    """One JSON object per row and line, from JSON-text columns in key order, as one byte string."""
    parts: list = []
    for index, (key, values) in enumerate(fields):
        parts += [("{" if index == 0 else ",") + json.dumps(key) + ":", values]
    lines = _concat(*parts, "}\n")
    return bytes(line_bytes(lines)) if len(lines) else b""


