"""One attribute file's summaries (dolma's per-file summary lines), read batch by batch.

Each batch of lines is parsed by Arrow's JSON reader, its spans flattened into numpy arrays and
counted into each attribute's buckets; memory holds a batch and the buckets, whatever the file's size.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json

from dolma_sql import storage
from dolma_sql.errors import InputError
from dolma_sql.formats.lines import LineBatch, decode_object, iter_line_batches, line_bytes
from dolma_sql.analyzer.histogram import Tracker

MEASURES = ("score", "length")


@dataclass(frozen=True)
class StatUnit:
    """Summarise the attribute file ``path`` (``size`` bytes) into ``key``, its per-file summary in the work folder."""

    path: str
    key: str
    size: int
    bins: int
    regex: str | None


def summarize_file(unit: StatUnit) -> dict[str, float]:
    """Every attribute's score and length values, bucketed, then folded into ``bins`` for this file (as dolma does)."""
    name_filter = re.compile(unit.regex) if unit.regex else None
    trackers: dict[str, Tracker] = {}  # by summary name, in the order dolma first meets the attributes
    seen: set[str] = set()
    lines = 0
    for batch in iter_line_batches(unit.path, count_progress=True):
        lines += len(batch)
        column = _attributes_column(batch)
        if column is None:
            continue
        for name in _newly_seen(column, batch, seen):
            seen.add(name)
            if name_filter is None or name_filter.search(name):
                trackers.update({f"{name}/{measure}": Tracker() for measure in MEASURES})
        for index, field in enumerate(column.type):
            if f"{field.name}/score" in trackers:
                scores, lengths = _span_values(column.field(index), field.name, batch)
                if "__label__" in field.name:  # fastText can report probabilities a hair above 1 (dolma caps them)
                    scores = np.minimum(scores, 1.0)
                trackers[f"{field.name}/score"].add(scores)
                trackers[f"{field.name}/length"].add(lengths)
    encoder = msgspec.json.Encoder()
    with storage.output(unit.key) as writer:
        for name, tracker in trackers.items():
            if tracker.total:
                writer.write(encoder.encode(tracker.summary(name, unit.bins)) + b"\n")
    return {"documents": lines, "files": 1}


def _attributes_column(batch: LineBatch) -> pa.StructArray | None:
    """The batch's ``attributes`` objects as one struct array (None when no line has them)."""
    data = line_bytes(batch.lines)
    options = pyarrow.json.ReadOptions(use_threads=False, block_size=len(data) + 1)  # one block: one type for the batch
    try:
        table = pyarrow.json.read_json(pa.BufferReader(pa.py_buffer(data)), read_options=options)
    except pa.ArrowInvalid:
        raise _bad_line(batch) or InputError("not JSON lines", path=batch.path) from None
    if "attributes" not in table.column_names:
        return None
    column = table.column("attributes").combine_chunks()
    if not pa.types.is_struct(column.type):
        raise _bad_line(batch) or InputError("`attributes` is not an object", path=batch.path)
    return column


def _newly_seen(column: pa.StructArray, batch: LineBatch, seen: set[str]) -> list[str]:
    """The attributes of this batch not ``seen`` before, in the order dolma meets them: by first line
    holding them, then by place in that line."""
    first_rows = {}
    for index, field in enumerate(column.type):
        if field.name not in seen:
            row = pc.index(pc.is_valid(column.field(index)), True).as_py()
            if row >= 0:
                first_rows[field.name] = row
    places: dict[str, int] = {}
    for row, holding in Counter(first_rows.values()).items():
        if holding > 1:
            line = batch.lines[_line_of_row(batch, len(column), row)].as_py()
            places.update({key: place for place, key in enumerate(msgspec.json.decode(line).get("attributes", {}))})
    return sorted(first_rows, key=lambda name: (first_rows[name], places.get(name, 0)))


def _line_of_row(batch: LineBatch, rows: int, row: int) -> int:
    """The batch's line that Arrow's JSON reader made row ``row`` of ``rows`` (it skips blank lines)."""
    if rows == len(batch):
        return row
    blank = pc.match_substring_regex(batch.lines, r"^\s*$").to_numpy(zero_copy_only=False)
    return int(np.flatnonzero(~blank)[row])


def _span_values(spans: pa.Array, name: str, batch: LineBatch) -> tuple[np.ndarray, np.ndarray]:
    """Scores and lengths of every span of one attribute; a present but empty list counts as one (0, 0, 0.0) span."""
    if pa.types.is_null(spans.type):
        return np.empty(0), np.empty(0)
    if not (pa.types.is_list(spans.type) and (pa.types.is_null(spans.type.value_type) or pa.types.is_list(spans.type.value_type))):
        raise _bad_line(batch) or InputError(f"attribute {name!r} is not a list of spans", path=batch.path)
    empty = int(pc.sum(pc.equal(pc.list_value_length(spans), 0)).as_py() or 0)
    if pa.types.is_list(spans.type.value_type):
        triples = spans.flatten()
        if triples.null_count or not pc.all(pc.equal(pc.list_value_length(triples), 3)).as_py():
            raise _bad_line(batch) or InputError(f"attribute {name!r} has a span that is not [start, end, score]", path=batch.path)
        flat = triples.flatten()
        if flat.null_count or not (pa.types.is_integer(flat.type) or pa.types.is_floating(flat.type)):
            raise _bad_line(batch) or InputError(f"attribute {name!r} has a span with a non-number", path=batch.path)
        values = flat.to_numpy(zero_copy_only=False).astype(np.float64).reshape(-1, 3)
    else:
        values = np.empty((0, 3))
    zeros = np.zeros(empty)
    return np.concatenate([values[:, 2], zeros]), np.concatenate([values[:, 1] - values[:, 0], zeros])


class _AttributeLine(msgspec.Struct):
    attributes: dict[str, list[tuple[int, int, float]]] = {}  # a line without attributes adds nothing, as in the batch read


def _bad_line(batch: LineBatch) -> InputError | None:
    """The batch's first line that is not JSON, or not ``{"attributes": {name: [[start, end, score], ...]}}`` (only on
    the error path)."""
    decode = msgspec.json.Decoder(_AttributeLine).decode
    for offset, line in enumerate(batch.lines.to_pylist()):
        number = batch.first_line + offset
        try:
            decode(line)
        except msgspec.ValidationError as error:
            return InputError(
                f"not an attribute line of span lists: {error}",
                path=batch.path,
                line=number,
                hint="stat reads attribute files whose values are lists of (start, end, score) spans; "
                "leave out attribute sets with other values (narrow the --attributes globs)",
            )
        except msgspec.DecodeError:
            try:
                decode_object(line, path=batch.path, line=number)
            except InputError as error:
                return error
    return None
