"""A dolma corpus as DuckDB views: ``documents``, ``attributes`` and ``spans``.

The views read the original JSON lines files lazily through DuckDB's ``read_ndjson`` (gzip and
zstd by extension), so nothing is copied: a query parses only the fields it uses and a
``LIMIT`` stops reading early. Document and attribute files are joined by position, the way
dolma lays them out (``documents/…`` beside line-aligned ``attributes/<name>/…``), and every
joined row checks its ids. The views are plain SQL over absolute paths, so they can be saved
into a DuckDB database file that any DuckDB client of the same version opens.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp

from dolma_sql.errors import ConfigError, DolmaSqlError, InputError
from dolma_sql.formats.lines import decode_object, head_lines, iter_line_batches
from dolma_sql.layout import attribute_path
from dolma_sql.storage import expand_globs
from dolma_sql.sql import fill, load_sql, render

DOCUMENT_FIELDS = {
    "id": "VARCHAR",
    "text": "VARCHAR",
    "source": "VARCHAR",
    "added": "VARCHAR",
    "created": "VARCHAR",
    "version": "VARCHAR",
    "metadata": "JSON",
}
"""dolma's document fields and their column types; other top-level fields become JSON columns."""

VIEW_COLUMNS = ("id", "file", "row")
"""Columns of the attributes view that attribute keys must not shadow."""

MISALIGNED = "dolma-sql: misaligned attributes"

HEAD_BYTES = 256 << 10
"""How much of a file (decompressed) is read to find its keys or fields, beyond the first attribute file, read whole."""

_MISSING_FUNCTION = re.compile(r'Function with name "?(\w+)"? does not exist')


@dataclass(frozen=True)
class AttributeKey:
    """One key of an attribute set and the column it becomes: ``spans``, ``number`` or ``json``."""

    name: str
    kind: str
    column: str


@dataclass(frozen=True)
class AttributeSet:
    """``attributes/<name>/…``: one file per document file, in the same order."""

    name: str
    files: tuple[str, ...]
    keys: tuple[AttributeKey, ...]


@dataclass(frozen=True)
class Corpus:
    """Absolute document paths, their attribute sets, and the document columns to expose."""

    documents: tuple[str, ...]
    attribute_sets: tuple[AttributeSet, ...]
    document_columns: tuple[tuple[str, str], ...]


def discover(document_globs: list[str], attribute_names: list[str] | None = None, *, document_dir: str = "documents") -> Corpus:
    """Find the documents, their attribute sets (all sets beside them when none are named), and their keys.

    A set's keys and value kinds come from all of its first file and the first ``HEAD_BYTES`` of
    every later one, so start-up stays cheap on large corpora: a key that first appears deeper
    than that into a later file is not a column of ``attributes`` (``spans`` still has it).
    """
    documents = tuple(os.path.abspath(path) for path in expand_globs(document_globs, config_path="--documents"))
    names = attribute_names if attribute_names is not None else _sets_beside(documents[0], document_dir)
    connection = duckdb.connect()
    sets: list[AttributeSet] = []
    taken = set(VIEW_COLUMNS)
    for name in names:
        files = tuple(attribute_path(doc, name, document_dir=document_dir) for doc in documents)
        for doc, attr in zip(documents, files):
            if not os.path.isfile(attr):
                raise ConfigError(
                    f"attribute set {name!r} has no file {attr} for documents file {doc}",
                    path="--attributes",
                    hint=f"tag every document file for {name!r} (dolma-sql tag), or leave {name!r} out",
                )
        keys = []
        connection.register("key_sample", _key_sample(files))
        try:
            found = _run(connection, render(load_sql("views_keys"))).fetchall()
        finally:
            connection.unregister("key_sample")
        for key, is_spans, is_number in found:
            column = key if key not in taken else f"{name}/{key}"
            taken.add(column)
            keys.append(AttributeKey(key, "spans" if is_spans else "number" if is_number else "json", column))
        sets.append(AttributeSet(name, files, tuple(keys)))
    return Corpus(documents, tuple(sets), _document_columns(documents[0]))


def _key_sample(files: tuple[str, ...]) -> pa.Table:
    """The attribute lines keys are read from, in order: the whole first file, then the head of each later one."""
    lines = [batch.lines for batch in iter_line_batches(files[0])]
    lines += [batch.lines for batch in (head_lines(path, HEAD_BYTES) for path in files[1:]) if batch is not None]
    joined = pa.concat_arrays(lines) if lines else pa.array([], pa.large_string())
    return pa.table({"position": np.arange(len(joined), dtype=np.int64), "line": joined})


def _sets_beside(first_document: str, document_dir: str) -> list[str]:
    """Every attribute set that has a file for the first document file."""
    probe = attribute_path(first_document, "\0", document_dir=document_dir)
    root = probe[: probe.index("\0")]
    return sorted(match[len(root) :].split("/")[0] for match in glob.glob(probe.replace("\0", "*")))


def _document_columns(first_document: str) -> tuple[tuple[str, str], ...]:
    """dolma's fields, then any other top-level field of the first ``HEAD_BYTES`` of the first file, as JSON."""
    seen: dict[str, None] = {}
    batch = head_lines(first_document, HEAD_BYTES)
    for offset, line in enumerate(batch.lines.to_pylist() if batch is not None else []):
        seen.update(dict.fromkeys(decode_object(line, path=first_document, line=batch.first_line + offset)))
    extra = [(name, "JSON") for name in seen if name not in DOCUMENT_FIELDS and name not in VIEW_COLUMNS]
    return (*DOCUMENT_FIELDS.items(), *extra)


# ------------------------------------------------------------------------------ view SQL
def _paths(paths) -> exp.Array:
    return exp.Array(expressions=[exp.Literal.string(path) for path in paths])


def _columns(pairs) -> exp.Struct:
    return exp.Struct(
        expressions=[exp.PropertyEQ(this=exp.to_identifier(name, quoted=True), expression=exp.Literal.string(kind)) for name, kind in pairs]
    )


KEY_TYPES = {"spans": "DOUBLE[][]", "number": "DOUBLE", "json": "JSON"}


def documents_view(corpus: Corpus) -> str:
    return render(fill(load_sql("views_documents"), files=_paths(corpus.documents), columns=_columns(corpus.document_columns)))


def attributes_view(corpus: Corpus) -> str:
    doc = lambda column: exp.column(column, table="d")  # noqa: E731
    view = load_sql("views_attributes")
    select = view.expression.args["from_"].this.this  # the inner SELECT ... AS joined
    checks, reasons = [], []
    for index, attribute_set in enumerate(corpus.attribute_sets):
        alias = f"a{index}"
        struct = exp.DataType(
            this=exp.DataType.Type.STRUCT,
            expressions=[exp.ColumnDef(this=exp.to_identifier(key.name, quoted=True), kind=exp.DataType.build(KEY_TYPES[key.kind])) for key in attribute_set.keys],
            nested=True,
        )
        columns = [("id", "VARCHAR"), ("attributes", struct.sql("duckdb") if attribute_set.keys else "JSON")]
        scan = fill(load_sql("views_attributes_set"), files=_paths(attribute_set.files), columns=_columns(columns))
        select.append("joins", exp.Join(this=exp.Subquery(this=scan, alias=exp.TableAlias(this=exp.to_identifier(alias))), method="POSITIONAL"))
        for key in attribute_set.keys:
            value = exp.Dot(this=exp.column("attributes", table=alias), expression=exp.to_identifier(key.name, quoted=True))
            if key.kind == "spans":
                value = fill(load_sql("views_span_column"), spans=value)
            select.select(exp.alias_(value, key.column, quoted=True), copy=False)
        set_id = exp.column("id", table=alias)
        checks.append(exp.NullSafeEQ(this=doc("id"), expression=set_id))
        reasons.append(
            fill(
                load_sql("views_attributes_mismatch"),
                doc_id=doc("id"),
                set_id=set_id,
                position=doc("position"),
                doc_file=doc("file"),
                set_file=exp.column("filename", table=alias),
            )
        )
    aligned = exp.and_(*checks) if checks else exp.true()
    mismatch = exp.func("coalesce", *reasons) if reasons else exp.Literal.string("")
    return render(fill(view, files=_paths(corpus.documents), aligned=aligned, mismatch=mismatch))


def spans_view(corpus: Corpus) -> str:
    files = [path for attribute_set in corpus.attribute_sets for path in attribute_set.files]
    all_spans = all(key.kind == "spans" for attribute_set in corpus.attribute_sets for key in attribute_set.keys)
    value = exp.column("value", table="e")
    spans = value if all_spans else exp.TryCast(this=value, to=exp.DataType.build("DOUBLE[][]", dialect="duckdb"))
    columns = [("id", "VARCHAR"), ("attributes", "MAP(VARCHAR, DOUBLE[][])" if all_spans else "MAP(VARCHAR, JSON)")]
    documents = [doc for attribute_set in corpus.attribute_sets for doc in corpus.documents]
    file_map = exp.values(list(zip(files, documents)), alias="m", columns=["attribute_file", "file"])
    return render(fill(load_sql("views_spans"), files=_paths(files), columns=_columns(columns), spans=spans, file_map=file_map))


def view_statements(corpus: Corpus) -> list[str]:
    """``CREATE OR REPLACE VIEW`` statements for every view the corpus has (spans only with span sets)."""
    statements = [documents_view(corpus)]
    if corpus.attribute_sets:
        statements.append(attributes_view(corpus))
        statements.append(spans_view(corpus))
    return statements


# ------------------------------------------------------------------------------ connections
def connect(corpus: Corpus | None, *, database: str | None = None, threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the corpus views (saved into ``database`` when given); taggers come with :func:`add_tagger_function`."""
    connection = duckdb.connect(database or ":memory:")
    if threads:
        connection.execute(f"SET threads = {int(threads)}")
    if corpus is not None:
        for statement in view_statements(corpus):
            connection.execute(statement)
    return connection


def open_views(
    documents: list[str] | None, attribute_names: list[str] | None, *, database: str | None = None, threads: int | None = None
) -> tuple[duckdb.DuckDBPyConnection, Corpus | None]:
    """The connection the ``sql`` and ``shell`` commands query: views over ``documents``, or a saved database's views."""
    if not documents and not database:
        raise ConfigError("nothing to query", path="--documents", hint="pass --documents GLOB (and --attributes NAME), or --database FILE saved earlier")
    corpus = discover(documents, attribute_names) if documents else None
    if corpus is None and not os.path.isfile(database):
        raise ConfigError(f"database {database} does not exist", path="--database", hint="create it with --documents GLOB --database FILE")
    try:
        return connect(corpus, database=database, threads=threads), corpus
    except duckdb.Error as error:
        raise DolmaSqlError(str(error), path=database) from None


def add_tagger_function(connection: duckdb.DuckDBPyConnection, error: duckdb.Error) -> bool:
    """Register the tagger a failed statement called as a SQL function; whether it did (then run the statement again).

    Taggers are registered on demand, when DuckDB reports the function missing: loading every
    tagger module would cost each ``sql`` and ``shell`` start-up half a second. They are not
    persisted in ``--database`` files.
    """
    missing = _MISSING_FUNCTION.search(str(error)) if isinstance(error, duckdb.CatalogException) else None
    if missing is None:
        return False
    from dolma_sql import tagging

    by_function = {tagging.make_variable_name(name).lower(): name for name in tagging.registry()}
    name = by_function.get(missing.group(1).lower())
    if name is None:
        return False
    try:
        tagging.register_duckdb_functions(connection, [name])
    except Exception as failure:  # a broken tagger must not take the corpus views down with it
        from rich.console import Console

        Console(stderr=True).print(f"[yellow]warning:[/] tagger SQL function {name} unavailable: {failure}", highlight=False)
        return False
    return True


def _run(connection: duckdb.DuckDBPyConnection, sql: str) -> duckdb.DuckDBPyRelation:
    try:
        return connection.sql(sql)
    except duckdb.Error as error:
        raise DolmaSqlError(str(error)) from None


def explain_error(error: duckdb.Error, corpus: Corpus | None) -> DolmaSqlError:
    """A user-facing error for a failed query: DuckDB's message, or the exact misaligned line."""
    message = str(error)
    if corpus is not None and MISALIGNED in message:
        located = find_misalignment(corpus)
        if located is not None:
            return located
    return DolmaSqlError(message)


def find_misalignment(corpus: Corpus) -> InputError | None:
    """Compare each attribute file with its document file line by line (only on the error path)."""
    import msgspec

    class Line(msgspec.Struct):
        id: str | int | None = None

    decode = msgspec.json.Decoder(Line).decode
    for attribute_set in corpus.attribute_sets:
        for doc_path, attr_path in zip(corpus.documents, attribute_set.files):
            doc_lines = (line for batch in iter_line_batches(doc_path) for line in batch.lines.to_pylist())
            attr_lines = (line for batch in iter_line_batches(attr_path) for line in batch.lines.to_pylist())
            number = 0
            while True:
                number += 1
                doc_line, attr_line = next(doc_lines, None), next(attr_lines, None)
                if doc_line is None and attr_line is None:
                    break
                doc_id = decode(doc_line).id if doc_line is not None else None
                attr_id = decode(attr_line).id if attr_line is not None else None
                if doc_id != attr_id or doc_line is None or attr_line is None:
                    what = (
                        f"has id {attr_id!r} but {doc_path}:{number} has id {doc_id!r}"
                        if doc_line is not None and attr_line is not None
                        else f"ends before {doc_path}, whose line {number} has id {doc_id!r}"
                        if attr_line is None
                        else f"has id {attr_id!r} but {doc_path} ends at line {number - 1}"
                    )
                    return InputError(
                        f"attribute line is not aligned with its document: {what}",
                        path=attr_path,
                        line=number,
                        hint=f"re-create attributes/{attribute_set.name} from these documents (dolma-sql tag), or leave it out",
                    )
    return None
