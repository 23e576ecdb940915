"""Running a user's SQL against the corpus views: the sandbox, the read-only guard, execution, and output.

Shared by ``dolma-sql sql`` and ``dolma-sql shell``. The security boundary is DuckDB's own
configuration (:func:`sandbox`): the connection touches only the files its views read and the
paths the command names, never the network or extensions, and its settings are locked. On top
of it, a friendly early refusal: a statement runs only if both sqlglot and DuckDB's own parser
classify it as a read (SELECT, set operations, DESCRIBE, SHOW, SUMMARIZE, PIVOT, EXPLAIN of a
read, read-only PRAGMAs); everything else (COPY, ATTACH, INSTALL, LOAD, CREATE, INSERT, SET,
CALL, …) needs ``--allow-write``. Unknown syntax is refused, not guessed.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence

import duckdb
import sqlglot
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from sqlglot import exp

from dolma_sql.engine import seal
from dolma_sql.errors import ConfigError, DolmaSqlError
from dolma_sql import storage
from dolma_sql.storage import codec_of, commit, urls
from dolma_sql.sql import render
from dolma_sql.views import Corpus, add_missing_function, explain_error, open_views, view_files, widen_object_limit

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
        extracted = duckdb.extract_statements(sql)
    except duckdb.Error as error:
        raise DolmaSqlError(str(error)) from None
    try:
        statements = [statement for statement in sqlglot.parse(sql, read="duckdb") if statement is not None]
    except Exception as error:  # whatever keeps the check from finishing refuses the statement
        raise _refused(sql, f"its syntax could not be checked ({(str(error) or type(error).__name__).splitlines()[0]})") from None
    if len(statements) != len(extracted):
        raise _refused(sql, "its statements could not be told apart")
    for statement, duckdb_statement in zip(statements, extracted):
        reason = _write_reason(statement, _statement_type(duckdb_statement))
        if reason:
            raise _refused(duckdb_statement.query[:200], reason)


def _statement_type(statement) -> str:
    """DuckDB's name for a statement's type; ``UNKNOWN`` for types the duckdb module has no name for (``UPDATE EXTENSIONS``)."""
    try:
        return statement.type.name
    except ValueError:
        return "UNKNOWN"


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
        return f"it is a statement of type {duckdb_type}"
    if not isinstance(statement, READ_EXPRESSIONS):
        return f"it is a {type(statement).__name__.upper()} statement"
    for node in statement.walk():
        if isinstance(node, WRITE_NODES):
            return f"it contains {type(node).__name__.upper()}"
    return None


def _refused(sql: str, reason: str) -> DolmaSqlError:
    return DolmaSqlError(
        f"refused to run a statement that may write: {reason}:\n    {sql.strip()}",
        hint="the corpus views are read-only by default; pass --allow-write to run statements that write (settings stay locked)",
    )


# ------------------------------------------------------------------------------ the sandbox
def open_sandboxed(
    documents: list[str] | None,
    attribute_names: list[str] | None,
    *,
    database: str | None,
    threads: int | None,
    allow_write: bool,
    allow_read: Sequence[str] = (),
    scratch: str | None = None,
    memory_limit: str | None = None,
) -> tuple[duckdb.DuckDBPyConnection, Corpus | None]:
    """The corpus views' connection, sandboxed: a saved ``database`` opens read-only unless ``allow_write``. Queries spill
    to a temporary folder of their own (DuckDB's default, ``.tmp`` in the working folder, would be readable by them), past
    ``memory_limit`` (DuckDB's syntax, e.g. ``2GB``; else DuckDB's default, 80% of the memory)."""
    connection, corpus = open_views(documents, attribute_names, database=database, threads=threads, read_only=not allow_write)
    spill = tempfile.mkdtemp(prefix="dolma-sql-spill-")
    atexit.register(shutil.rmtree, spill, ignore_errors=True)
    connection.execute(f"SET temp_directory = {render(exp.Literal.string(spill))}")
    if memory_limit is not None:
        try:
            connection.execute(f"SET memory_limit = {render(exp.Literal.string(memory_limit))}")
        except duckdb.Error as error:
            raise ConfigError(str(error).splitlines()[0], path="--memory-limit", hint="a size such as 512MB or 4GB") from None
    try:
        sandbox(connection, [*allow_read, *(path for path in (database, scratch) if path)])
    except duckdb.OutOfMemoryException:
        raise ConfigError(f"{memory_limit} is too little for DuckDB to open the views", path="--memory-limit", hint="give it at least 64MB") from None
    return connection, corpus


def sandbox(connection: duckdb.DuckDBPyConnection, allowed: Sequence[str] = ()) -> None:
    """Confine ``connection`` with DuckDB's own settings: files only where its views read and in ``allowed``
    (files, or folders and everything under them), no network, no extension installed or loaded, no
    logging, and a locked configuration.

    Writing needs a statement that writes (``COPY``, ``CREATE``, ``ATTACH``, …), which the read-only
    guard refuses without ``--allow-write``; with it, only these paths can be written. DuckDB does not
    tell reading from writing, nor a symlink from its target (it resolves both sides). A URL (``s3://…``)
    is allowed as a file, or as a folder (every key under its prefix) when it is none.
    """
    files, folders = _files_and_folders(allowed)
    for name, value in [("allowed_paths", _strings([*view_files(connection), *files])), ("allowed_directories", _strings(folders))]:
        connection.execute(f"SET {name} = {render(value)}")
    seal(connection)


def _files_and_folders(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """``paths`` sorted into files and folders, local ones made absolute (a remote folder ends with ``/``,
    so that it does not also allow its siblings whose names it starts)."""
    files, folders = [], []
    for path in paths:
        if storage.is_local(path):
            local = os.path.abspath(os.path.expanduser(urls.local_path(path)))
            (folders if os.path.isdir(local) else files).append(local)
        elif urls.isfile(path):
            files.append(path)
        else:
            folders.append(path.rstrip("/") + "/")
    return files, folders


def _strings(values: list[str]) -> exp.Expression:
    return exp.cast(exp.Array(expressions=[exp.Literal.string(value) for value in values]), "VARCHAR[]")


# ------------------------------------------------------------------------------ running and printing
def execute(connection: duckdb.DuckDBPyConnection, sql: str, *, corpus: Corpus | None, allow_write: bool) -> duckdb.DuckDBPyRelation | None:
    """Run ``sql`` (all its statements); the relation of the last one, or None when it returns no rows."""
    if not allow_write:
        check_read_only(sql)
    return _retrying(connection, corpus, lambda: connection.sql(sql))


def _retrying(connection: duckdb.DuckDBPyConnection, corpus: Corpus | None, action: Callable):
    """``action()``, run again after each fix its failure asks for (a span macro or tagger defined, longer
    JSON lines accepted: each retry changes one more thing, so this ends); other failures made user-facing."""
    while True:
        try:
            return action()
        except duckdb.Error as error:
            if not (add_missing_function(connection, error) or widen_object_limit(connection, error)):
                raise explain_error(error, corpus, connection) from None


def fetch(connection: duckdb.DuckDBPyConnection, relation: duckdb.DuckDBPyRelation, corpus: Corpus | None, limit: int | None = None):
    """Column names and rows (at most ``limit``) of ``relation``, with query errors made user-facing."""
    rows = _retrying(connection, corpus, lambda: relation.limit(limit).fetchall() if limit is not None else relation.fetchall())
    return relation.columns, rows


def print_table(
    connection: duckdb.DuckDBPyConnection,
    relation: duckdb.DuckDBPyRelation,
    console: Console,
    corpus: Corpus | None,
    max_rows: int,
    *,
    more_rows: str = "raise --max-rows or use --format/--output",
) -> None:
    """A rich table of at most ``max_rows`` rows (one extra is fetched to tell whether more exist); ``more_rows`` says
    how to see the others."""
    columns, rows = fetch(connection, relation, corpus, limit=max_rows + 1)
    table = Table(show_lines=False, header_style="bold")
    for name, kind in zip(columns, relation.types):
        table.add_column(f"{name}\n[dim]{_short_type(str(kind).lower())}[/dim]", overflow="fold")
    for row in rows[:max_rows]:
        table.add_row(*(_cell(value) for value in row))
    console.print(table)
    more = f" (more rows not shown; {more_rows})" if len(rows) > max_rows else ""
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


@contextlib.contextmanager
def export_scratch(fmt: str, output: str | None) -> Iterator[str | None]:
    """The private folder :func:`export` writes the result into before it reaches ``output`` or stdout
    (None for a table on the terminal). Made before the sandbox, which lets SQL write there; beside a
    local ``output``, so the final rename stays on one filesystem (a remote one is uploaded from it)."""
    if fmt == "table" and output is None:
        yield None
        return
    if fmt not in (*EXPORTS, "table"):
        raise DolmaSqlError(f"unknown --format {fmt!r}", hint="use table, csv, json or parquet")
    if output is None and fmt == "parquet":
        raise DolmaSqlError("--format parquet needs --output FILE", hint="parquet is binary; name the file to write")
    if output is not None:
        storage.check_writable_file(output, where="--output")  # before the query runs
    beside = os.path.dirname(os.path.abspath(urls.local_path(output))) if output is not None and storage.is_local(output) else None
    made = commit.missing_folders(beside) if beside is not None else []
    if beside is not None:
        os.makedirs(beside, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(dir=beside) as scratch:
            yield scratch
    finally:
        commit.remove_empty_folders(made)  # a query that failed leaves no folder behind (a written output keeps its own)


def export(
    connection: duckdb.DuckDBPyConnection, relation: duckdb.DuckDBPyRelation, fmt: str, output: str | None, corpus: Corpus | None, scratch: str
) -> None:
    """Stream the result as csv, json (lines) or parquet through ``scratch`` (see :func:`export_scratch`) into
    ``output`` atomically (compressed by extension), or to stdout.

    The result is streamed as Arrow batches into DuckDB's COPY, so its size is not bounded by memory.
    """
    fmt = "csv" if fmt == "table" else fmt
    target = os.path.join(scratch, "result")
    options = [f"FORMAT {fmt}"]
    if fmt != "parquet":
        options.append(f"COMPRESSION {COMPRESSIONS[codec_of(output or '')]}")
    writer = connection.cursor()  # the relation's result stays open on `connection` while this one copies it

    def copy() -> None:
        writer.register("dolma_sql_result", relation.to_arrow_reader())
        writer.execute(f"COPY dolma_sql_result TO {render(exp.Literal.string(target))} ({', '.join(options)})")

    try:
        _retrying(connection, corpus, copy)
    finally:
        writer.close()
    if output is not None:
        storage.publish(target, output)  # a rename beside a local output, an upload of a remote one
    else:
        with open(target, "rb") as result:
            shutil.copyfileobj(result, sys.stdout.buffer)
        sys.stdout.flush()


COMPRESSIONS = {"gz": "gzip", "zst": "zstd", "": "none"}
