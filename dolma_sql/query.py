"""Running a user's SQL against the corpus views: the read-only guard, execution, and output.

Shared by ``dolma-sql sql`` and ``dolma-sql shell``. A statement runs only if both sqlglot and
DuckDB's own parser classify it as a read (SELECT, set operations, DESCRIBE, SHOW, SUMMARIZE,
PIVOT, EXPLAIN of a read, read-only PRAGMAs); everything else (COPY, ATTACH, INSTALL, LOAD,
CREATE, INSERT, SET, CALL, …) needs ``--allow-write``. Unknown syntax is refused, not guessed.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile

import duckdb
import sqlglot
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from sqlglot import exp

from dolma_sql.errors import DolmaSqlError
from dolma_sql.storage import codec_of
from dolma_sql.sql import render
from dolma_sql.views import Corpus, add_tagger_function, explain_error

READ_EXPRESSIONS = (exp.Query, exp.Describe, exp.Show, exp.Summarize, exp.Pivot)
"""sqlglot statement roots that only read (exp.Query covers SELECT and set operations)."""

WRITE_NODES = (exp.DML, exp.DDL, exp.Copy, exp.Set, exp.Command, exp.Into, exp.Attach, exp.Detach, exp.Install, exp.Pragma)
"""sqlglot nodes that modify state anywhere inside a statement."""

READ_PRAGMAS = frozenset(
    {"show_tables", "show_tables_expanded", "table_info", "show", "database_size", "storage_info", "version", "platform", "functions", "collations"}
)

DUCKDB_READ_TYPES = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "MULTI"})
"""DuckDB statement types a read may have (MULTI is PIVOT); sqlglot decides the rest."""

EXPORTS = ("csv", "json", "parquet")

logging.getLogger("sqlglot").setLevel(logging.ERROR)


def check_read_only(sql: str) -> None:
    """Raise unless every statement in ``sql`` only reads."""
    try:
        duckdb_types = [statement.type.name for statement in duckdb.extract_statements(sql)]
    except duckdb.Error as error:
        raise DolmaSqlError(str(error)) from None
    try:
        statements = [statement for statement in sqlglot.parse(sql, read="duckdb") if statement is not None]
    except sqlglot.errors.SqlglotError as error:
        raise _refused(sql, f"its syntax could not be checked ({str(error).splitlines()[0]})") from None
    if len(statements) != len(duckdb_types):
        raise _refused(sql, "its statements could not be told apart")
    for statement, duckdb_type in zip(statements, duckdb_types):
        reason = _write_reason(statement, duckdb_type)
        if reason:
            raise _refused(statement.sql(dialect="duckdb")[:200], reason)


def _write_reason(statement: exp.Expression, duckdb_type: str) -> str | None:
    if isinstance(statement, exp.Command) and statement.this.upper() == "EXPLAIN":
        inner = str(statement.expression.this if isinstance(statement.expression, exp.Literal) else statement.expression or "")
        if inner.strip().upper().startswith("ANALYZE"):
            inner = inner.strip()[len("ANALYZE") :]
        try:
            check_read_only(inner)
        except DolmaSqlError:
            return "it explains a statement that writes"
        return None
    if isinstance(statement, exp.Pragma):
        name = statement.this.name if isinstance(statement.this, exp.Expression) else str(statement.this)
        return None if name.lower() in READ_PRAGMAS else f"PRAGMA {name} is not a known read-only pragma"
    if duckdb_type not in DUCKDB_READ_TYPES:
        return f"it is a {duckdb_type} statement"
    if not isinstance(statement, READ_EXPRESSIONS):
        return f"it is a {type(statement).__name__.upper()} statement"
    for node in statement.walk():
        if isinstance(node, WRITE_NODES):
            return f"it contains {type(node).__name__.upper()}"
    return None


def _refused(sql: str, reason: str) -> DolmaSqlError:
    return DolmaSqlError(
        f"refused to run a statement that may write: {reason}:\n    {sql.strip()}",
        hint="the corpus views are read-only by default; pass --allow-write to run statements that write or change settings",
    )


def execute(connection: duckdb.DuckDBPyConnection, sql: str, *, corpus: Corpus | None, allow_write: bool) -> duckdb.DuckDBPyRelation | None:
    """Run ``sql`` (all its statements); the relation of the last one, or None when it returns no rows."""
    if not allow_write:
        check_read_only(sql)
    while True:
        try:
            return connection.sql(sql)
        except duckdb.Error as error:
            if not add_tagger_function(connection, error):  # each retry registers one more tagger, so this ends
                raise explain_error(error, corpus) from None


def fetch(relation: duckdb.DuckDBPyRelation, corpus: Corpus | None, limit: int | None = None):
    """Column names and rows (at most ``limit``) of ``relation``, with query errors made user-facing."""
    try:
        rows = relation.limit(limit).fetchall() if limit is not None else relation.fetchall()
    except duckdb.Error as error:
        raise explain_error(error, corpus) from None
    return relation.columns, rows


def print_table(relation: duckdb.DuckDBPyRelation, console: Console, corpus: Corpus | None, max_rows: int) -> None:
    """A rich table of at most ``max_rows`` rows (one extra is fetched to tell whether more exist)."""
    columns, rows = fetch(relation, corpus, limit=max_rows + 1)
    table = Table(show_lines=False, header_style="bold")
    for name, kind in zip(columns, relation.types):
        table.add_column(f"{name}\n[dim]{_short_type(str(kind).lower())}[/dim]", overflow="fold")
    for row in rows[:max_rows]:
        table.add_row(*(_cell(value) for value in row))
    console.print(table)
    more = " (more rows not shown; raise --max-rows or use --format/--output)" if len(rows) > max_rows else ""
    console.print(f"[dim]{min(len(rows), max_rows)} row{'s' if len(rows) != 1 else ''}{more}[/dim]", highlight=False)


def _short_type(kind: str) -> str:
    """``struct("start" bigint, …)[]`` -> ``struct(…)[]``: nested types would take more room than the values."""
    if "(" in kind and len(kind) > 24:
        return kind[: kind.index("(")] + "(…)" + kind[kind.rindex(")") + 1 :]
    return kind


def _cell(value) -> str:
    if value is None:
        return "[dim]NULL[/dim]"
    text = str(value)
    return escape(text if len(text) <= 300 else text[:300] + "…")


def export(connection: duckdb.DuckDBPyConnection, relation: duckdb.DuckDBPyRelation, fmt: str, output: str | None, corpus: Corpus | None) -> None:
    """Stream the result as csv, json (lines) or parquet into ``output`` atomically (compressed by extension), or to stdout.

    The result is streamed as Arrow batches into DuckDB's COPY, so its size is not bounded by memory.
    """
    if fmt not in EXPORTS:
        raise DolmaSqlError(f"unknown --format {fmt!r}", hint="use table, csv, json or parquet")
    if output is None and fmt == "parquet":
        raise DolmaSqlError("--format parquet needs --output FILE", hint="parquet is binary; name the file to write")
    if output is not None:
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(output)) if output else None) as scratch:
        target = os.path.join(scratch, "result")
        options = [f"FORMAT {fmt}"]
        if fmt != "parquet":
            options.append(f"COMPRESSION {COMPRESSIONS[codec_of(output or '')]}")
        writer = connection.cursor()  # the relation's result stays open on `connection` while this one copies it
        try:
            writer.register("dolma_sql_result", relation.fetch_record_batch())
            writer.execute(f"COPY dolma_sql_result TO {render(exp.Literal.string(target))} ({', '.join(options)})")
        except duckdb.Error as error:
            raise explain_error(error, corpus) from None
        finally:
            writer.close()
        if output is not None:
            os.replace(target, output)
        else:
            with open(target, "rb") as result:
                shutil.copyfileobj(result, sys.stdout.buffer)
            sys.stdout.flush()


COMPRESSIONS = {"gz": "gzip", "zst": "zstd", "": "none"}
