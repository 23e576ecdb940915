"""Documents parsed from line batches: the fields a command asks for, as Arrow columns."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from dolma_sql.errors import InputError
from dolma_sql.formats.lines import BATCH_BYTES, decode_object, iter_line_batches, line_offsets, raise_first_malformed


@dataclass(frozen=True)
class DocumentBatch:
    """Parsed documents of one line batch: ``table`` has one column per requested field.

    String fields (``id``, ``text``, ``source``, …) are strings (a non-string ``id`` is rendered
    as its JSON text, e.g. ``1``); ``metadata`` and other object fields are JSON text. A field
    missing from a document is null. ``table.num_rows == len(lines)``: row ``i`` is line
    ``first_line + i``.
    """

    path: str
    first_line: int
    lines: pa.LargeStringArray
    table: pa.Table

    def __len__(self) -> int:
        return self.table.num_rows


JSON_FIELDS = frozenset({"metadata", "attributes"})
"""Top-level fields returned as JSON text rather than as strings."""


def iter_document_batches(
    path: str,
    *,
    fields: tuple[str, ...] = ("id", "text"),
    required: tuple[str, ...] = ("text",),
    json_fields: tuple[str, ...] = (),
    codec: str | None = None,
    batch_bytes: int = BATCH_BYTES,
    count_progress: bool = True,
    staging: str | None = None,
) -> Iterator[DocumentBatch]:
    """Parse ``path``'s documents batch by batch with DuckDB's JSON reader (vectorized, multi-threaded).

    ``json_fields`` are returned as their JSON text, as ``metadata`` is (an ``id`` that may be a
    number or a string: ``7`` or ``"7"``). A malformed line, a line that is not an object, or a
    document whose required field is missing or not a string is an :class:`InputError` naming the
    file and line. ``staging``: see :func:`~dolma_sql.formats.lines.iter_line_batches`.
    """
    connection = query = None  # DuckDB is imported and connected only when the fast path declines a batch
    string_schema = _string_fields_schema(fields)
    for batch in iter_line_batches(path, codec=codec, batch_bytes=batch_bytes, count_progress=count_progress, staging=staging):
        fast = _decode_string_fields(string_schema, fields, batch.lines, required) if string_schema is not None else None
        if fast is not None:
            fast = _as_json_text(fast, json_fields)
            yield DocumentBatch(path=path, first_line=batch.first_line, lines=batch.lines, table=fast)
            continue
        import duckdb

        from dolma_sql.engine import sealed_connection

        if connection is None:
            connection, query = sealed_connection(), _fields_query(fields, required, json_fields)
        lines_table = pa.table({"line": batch.lines})
        connection.register("lines", lines_table)
        try:
            result = connection.sql(query).to_arrow_table()
        except duckdb.Error:
            raise_first_malformed(batch)
            raise
        finally:
            connection.unregister("lines")
        for name in required:
            ok = result.column(f"ok_{name}")
            if not pa.compute.all(ok).as_py():
                bad = pa.compute.index(ok, False).as_py()
                decode_object(batch.lines[bad].as_py(), path=path, line=batch.first_line + bad)  # a line that is no object says so
                raise InputError(
                    f"document has no string field {name!r}",
                    path=path,
                    line=batch.first_line + bad,
                    hint=f"every document needs a string {name!r}; fix or remove that line",
                )
        yield DocumentBatch(path=path, first_line=batch.first_line, lines=batch.lines, table=result.select(list(fields)))


def _fields_query(fields: tuple[str, ...], required: tuple[str, ...], json_fields: tuple[str, ...]) -> str:
    """DuckDB's query of ``fields`` over the registered ``lines`` (and ``ok_<name>``: whether each ``required`` one is a string).
    Field names come from configs, so they are written as quoted identifiers and string literals, never as SQL."""
    from sqlglot import exp

    def literal(text: str) -> str:
        return exp.Literal.string(text).sql("duckdb")

    def name_of(text: str) -> str:
        return exp.to_identifier(text, quoted=True).sql("duckdb")

    # a dotted name is a nested path, as dolma's field names (``metadata.text``)
    paths = ", ".join(literal("$" + "".join('."' + part.replace('"', '\\"') + '"' for part in name.split("."))) for name in fields)
    projections = ", ".join(
        f"CASE WHEN json_type(v[{i + 1}]) = 'VARCHAR' THEN v[{i + 1}]->>'$' ELSE v[{i + 1}]::VARCHAR END AS {name_of(name)}"
        if name not in JSON_FIELDS and name not in json_fields
        else f"v[{i + 1}]::VARCHAR AS {name_of(name)}"
        for i, name in enumerate(fields)
    )
    checks = ", ".join(f"coalesce(json_type(v[{fields.index(name) + 1}]) = 'VARCHAR', false) AS {name_of('ok_' + name)}" for name in required)
    return f"SELECT {projections}{', ' + checks if checks else ''} FROM (SELECT json_extract(line, [{paths}]) AS v FROM lines)"


def single_array(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array: its only chunk itself (``combine_chunks`` copies even that), else the chunks joined."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _string_fields_schema(fields: tuple[str, ...]) -> pa.Schema | None:
    """The all-string schema of the fast path when every requested field is a plain string field, or one
    nested in objects (``metadata.url``: a struct of strings); ``None`` otherwise."""
    tree: dict = {}
    for name in fields:
        *parents, leaf = name.split(".")
        if name in JSON_FIELDS or not all(part.isidentifier() for part in (*parents, leaf)):
            return None
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
            if node is None:
                return None  # both "a" and "a.b"
        if leaf in node:
            return None
        node[leaf] = None
    return pa.schema(_typed_fields(tree))


def _typed_fields(tree: dict) -> list[tuple[str, pa.DataType]]:
    return [(name, pa.string() if node is None else pa.struct(_typed_fields(node))) for name, node in tree.items()]


def _as_json_text(table: pa.Table, json_fields: tuple[str, ...]) -> pa.Table:
    """Strings of ``json_fields`` as JSON string literals (a missing field stays null)."""
    from dolma_sql.formats.attributes import json_strings

    for name in json_fields:
        values = table.column(name).combine_chunks()
        literals = pa.compute.if_else(values.is_valid(), json_strings(values), pa.scalar(None, pa.large_string()))
        table = table.set_column(table.schema.get_field_index(name), name, literals)
    return table


def _decode_string_fields(schema: pa.Schema, fields: tuple[str, ...], lines: pa.LargeStringArray, required: tuple[str, ...]) -> pa.Table | None:
    """Fast path (about 2x msgspec into Python strings, 4x DuckDB's JSON reader, on one core): Arrow's
    JSON reader on the batch's bytes, in place, with an explicit all-string schema.

    That reader is stricter than needed (a non-string value or a repeated key fails) and skips blank
    lines, so any failure, a null required field, a line not starting with ``{`` or a row count other
    than the line count returns ``None`` and the caller takes the DuckDB path, which produces the
    exact values or the line-accurate error.
    """
    import pyarrow.json

    if not len(lines):
        return None
    offsets = line_offsets(lines)
    data = lines.buffers()[2][offsets[0] : offsets[-1]]
    if not np.all(np.frombuffer(data, dtype=np.uint8)[offsets[:-1] - offsets[0]] == ord("{")):
        return None
    try:
        table = pyarrow.json.read_json(
            pa.BufferReader(data),
            read_options=pyarrow.json.ReadOptions(use_threads=False, block_size=len(data) + 1),
            parse_options=pyarrow.json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"),
        )
    except pa.ArrowInvalid:
        return None
    if table.num_rows != len(lines):
        return None
    columns = {}
    for name in fields:
        column = single_array(table.column(name.split(".")[0]))
        for part in name.split(".")[1:]:
            column = pa.compute.struct_field(column, part)
        if name in required and column.null_count:
            return None
        columns[name] = column
    return pa.table(columns)


