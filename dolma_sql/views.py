"""A dolma corpus as DuckDB views: ``documents``, ``attributes`` and ``spans``.

The views read the original JSON lines files lazily through DuckDB's ``read_ndjson`` (gzip and
zstd by extension), so nothing is copied: a query parses only the fields it uses and a
``LIMIT`` stops reading early. Document and attribute files are joined by position, the way
dolma lays them out (``documents/…`` beside line-aligned ``attributes/<name>/…``), and every
joined row checks its ids. The views are plain SQL over absolute paths (or URLs), so they can be
saved into a DuckDB database file that any DuckDB client of the same version opens.

Files on object storage (``s3://``, any fsspec URL) are read through the storage layer's fsspec
filesystems, registered with each connection (:func:`register_filesystems`): DuckDB's own S3
support (the ``httpfs`` extension, which it would download, and its secrets) is never used, so the
credentials stay in Python, out of SQL's reach.

What the views read is also what a sandboxed connection may read (:func:`view_files`); the
span macros and tagger functions that queries call are defined here on demand
(:func:`add_missing_function`).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

from dolma_sql import storage
from dolma_sql.errors import ConfigError, DolmaSqlError, InputError
from dolma_sql.formats.lines import LineBatch, decode_object, head_lines, iter_line_batches, raise_first_malformed
from dolma_sql.layout import attribute_path
from dolma_sql.storage import expand_globs, urls
from dolma_sql.storage.remote import filesystem_of, protocol
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

VIEW_NAMES = ("documents", "attributes", "spans")

OBJECT_LIMIT_VARIABLE = "dolma_sql_maximum_object_size"
"""The DuckDB variable holding the views' longest accepted JSON line (views_object_limit.sql)."""

OBJECT_LIMIT_CAP = 2**32 - 1
"""The largest ``maximum_object_size`` DuckDB takes (a UINTEGER)."""

OUTSIDE_SANDBOX_HINT = "queries may read only the corpus files and the --database file; name other files or folders with --allow-read PATH"

_MISSING_FUNCTION = re.compile(r'Function with name "?(\w+)"? does not exist')
_OBJECT_TOO_LARGE = re.compile(r'"maximum_object_size" of (\d+) bytes exceeded')
_MALFORMED_IN_FILE = re.compile(r'Malformed JSON in file "(.+?)", at byte \d+ in line \d+')


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
    documents = tuple(_absolute(path) for path in expand_globs(document_globs, config_path="--documents"))
    names = attribute_names if attribute_names is not None else _sets_beside(documents[0], document_dir)
    connection = duckdb.connect()
    found: dict[str, tuple[tuple[str, ...], list[tuple[str, str]]]] = {}
    for name in names:
        files = tuple(attribute_path(doc, name, document_dir=document_dir) for doc in documents)
        for doc, attr in zip(documents, files):
            if not urls.isfile(attr):
                raise ConfigError(
                    f"attribute set {name!r} has no file {attr} for documents file {doc}",
                    path="--attributes",
                    hint=f"tag every document file for {name!r} (dolma-sql tag), or leave {name!r} out",
                )
        sample = _key_sample(files)
        connection.register("key_sample", _sample_table(sample))
        try:
            kinds = connection.sql(render(load_sql("views_keys"))).fetchall()
        except duckdb.Error as error:
            for batch in sample:  # the malformed line, named as the other commands name it
                raise_first_malformed(batch)
            raise DolmaSqlError(str(error)) from None
        finally:
            connection.unregister("key_sample")
        found[name] = files, [(key, "spans" if is_spans else "number" if is_number else "json") for key, is_spans, is_number in kinds]
    columns = _column_names({name: [key for key, _ in keys] for name, (_, keys) in found.items()})
    sets = [
        AttributeSet(name, files, tuple(AttributeKey(key, kind, columns[name, key]) for key, kind in keys)) for name, (files, keys) in found.items()
    ]
    return Corpus(documents, tuple(sets), _document_columns(documents[0]))


def _column_names(keys_by_set: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """The attributes view's column for each (set, key): the key, or ``<set>__<key>`` when another set
    writes the same key (or it is ``id``, ``file`` or ``row``), so no set's values hide another's."""
    writers = Counter(key for keys in keys_by_set.values() for key in keys)
    columns = {
        (name, key): key if writers[key] == 1 and key not in VIEW_COLUMNS else f"{name}__{key}" for name, keys in keys_by_set.items() for key in keys
    }
    clashing = [column for column, count in Counter(columns.values()).items() if count > 1]
    if clashing:
        raise ConfigError(
            f"attribute column {clashing[0]!r} would hold two different attributes",
            path="--attributes",
            hint="query the sets in separate runs (--attributes NAME), or use the spans view, whose rows name their set",
        )
    return columns


def _key_sample(files: tuple[str, ...]) -> list[LineBatch]:
    """The attribute lines keys are read from, in order: the whole first file, then the head of each later one."""
    return [*iter_line_batches(files[0]), *(batch for batch in (head_lines(path, HEAD_BYTES) for path in files[1:]) if batch is not None)]


def _sample_table(sample: list[LineBatch]) -> pa.Table:
    joined = pa.concat_arrays([batch.lines for batch in sample]) if sample else pa.array([], pa.large_string())
    return pa.table({"position": np.arange(len(joined), dtype=np.int64), "line": joined})


def _sets_beside(first_document: str, document_dir: str) -> list[str]:
    """Every attribute set that has a file for the first document file."""
    probe = attribute_path(first_document, "\0", document_dir=document_dir)
    root = probe[: probe.index("\0")]
    return sorted(match[len(root) :].split("/")[0] for match in urls.glob(probe.replace("\0", "*")))


def _absolute(path: str) -> str:
    """A local path made absolute (views saved in a database must not depend on the current folder); a URL as it is."""
    return os.path.abspath(urls.local_path(path)) if urls.is_local(path) else path


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


def _readable(paths) -> exp.Array:
    """The files a view reads: zero-byte files are left out, since DuckDB rejects an empty ``.gz`` that every
    other command reads as an empty file; ``os.devnull`` stands in when none is left (a reader needs a file)."""
    return _paths([path for path in paths if storage.size(path)] or [os.devnull])


def _object_limit() -> exp.Expression:
    return fill(load_sql("views_object_limit"), variable=exp.Literal.string(OBJECT_LIMIT_VARIABLE))


KEY_TYPES = {"spans": "DOUBLE[][]", "number": "DOUBLE", "json": "JSON"}


def documents_view(corpus: Corpus) -> str:
    view = fill(
        load_sql("views_documents"), files=_readable(corpus.documents), columns=_columns(corpus.document_columns), maximum_object_size=_object_limit()
    )
    return render(view)


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
        scan = fill(load_sql("views_attributes_set"), files=_readable(attribute_set.files), columns=_columns(columns), maximum_object_size=_object_limit())
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
    return render(fill(view, files=_readable(corpus.documents), aligned=aligned, mismatch=mismatch, maximum_object_size=_object_limit()))


def spans_view(corpus: Corpus) -> str:
    files = [path for attribute_set in corpus.attribute_sets for path in attribute_set.files]
    all_spans = all(key.kind == "spans" for attribute_set in corpus.attribute_sets for key in attribute_set.keys)
    value = exp.column("value", table="e")
    spans = value if all_spans else exp.TryCast(this=value, to=exp.DataType.build("DOUBLE[][]", dialect="duckdb"))
    columns = [("id", "VARCHAR"), ("attributes", "MAP(VARCHAR, DOUBLE[][])" if all_spans else "MAP(VARCHAR, JSON)")]
    owners = [(doc, attribute_set.name) for attribute_set in corpus.attribute_sets for doc in corpus.documents]
    file_map = exp.values([(path, *owner) for path, owner in zip(files, owners)], alias="m", columns=["attribute_file", "file", "set"])
    view = fill(load_sql("views_spans"), files=_readable(files), columns=_columns(columns), spans=spans, file_map=file_map, maximum_object_size=_object_limit())
    return render(view)


def view_statements(corpus: Corpus) -> list[str]:
    """``CREATE OR REPLACE VIEW`` statements for every view the corpus has (spans only with span sets)."""
    statements = [documents_view(corpus)]
    if corpus.attribute_sets:
        statements.append(attributes_view(corpus))
        statements.append(spans_view(corpus))
    return statements


# ------------------------------------------------------------------------------ connections
def connect(
    corpus: Corpus | None, *, database: str | None = None, threads: int | None = None, read_only: bool = False
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the corpus views, saved into ``database`` when given (then reopened
    read-only with ``read_only``, so the engine itself refuses to change it); span macros and taggers
    come with :func:`add_missing_function`."""
    connection = duckdb.connect(database or ":memory:", config=NO_EXTENSION_DOWNLOADS)
    if corpus is not None:
        register_filesystems(connection, [*corpus.documents, *(path for found in corpus.attribute_sets for path in found.files)])
        for statement in view_statements(corpus):
            connection.execute(statement)
    if database and read_only:
        connection.close()
        connection = duckdb.connect(database, read_only=True, config=NO_EXTENSION_DOWNLOADS)
    if database:
        register_filesystems(connection, view_files(connection))  # the remote files of views saved earlier
    if threads:
        connection.execute(f"SET threads = {int(threads)}")
    return connection


NO_EXTENSION_DOWNLOADS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
"""A URL DuckDB knows (``s3://``) must not make it download an extension: the registered filesystems serve it."""


def register_filesystems(connection: duckdb.DuckDBPyConnection, paths: list[str]) -> None:
    """Let DuckDB read the remote files among ``paths`` through the storage layer's filesystem of their protocol."""
    registered = set(connection.list_filesystems())
    for name in dict.fromkeys(protocol(path) for path in paths if not urls.is_local(path)):
        fs = filesystem_of(name)
        if not registered.intersection(fs.protocol if isinstance(fs.protocol, (tuple, list)) else [fs.protocol]):
            connection.register_filesystem(fs)
            registered.update(connection.list_filesystems())


def open_views(
    documents: list[str] | None,
    attribute_names: list[str] | None,
    *,
    database: str | None = None,
    threads: int | None = None,
    read_only: bool = False,
) -> tuple[duckdb.DuckDBPyConnection, Corpus | None]:
    """The connection the ``sql`` and ``shell`` commands query: views over ``documents``, or a saved database's views."""
    if not documents and not database:
        raise ConfigError("nothing to query", path="--documents", hint="pass --documents GLOB (and --attributes NAME), or --database FILE saved earlier")
    if database and not urls.is_local(database):
        raise ConfigError(f"{database} is not a local file", path="--database", hint="save the views into a local DuckDB file (the corpus may be anywhere)")
    corpus = discover(documents, attribute_names) if documents else None
    if corpus is None and not os.path.isfile(database):
        raise ConfigError(f"database {database} does not exist", path="--database", hint="create it with --documents GLOB --database FILE")
    try:
        return connect(corpus, database=database, threads=threads, read_only=read_only), corpus
    except duckdb.Error as error:
        raise DolmaSqlError(str(error), path=database) from None


def view_files(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """The files the corpus views read: the file lists of their ``read_ndjson`` calls, in the views' SQL as DuckDB keeps it.

    Taken from the views rather than from a :class:`Corpus`, so a database saved earlier gives its own
    files. Only the file list (the first argument) counts: a string elsewhere in a view grants nothing.
    """
    catalog = connection.cursor()  # its own transaction: the connection's may have been aborted by a failure
    try:
        definitions = catalog.execute(
            "SELECT sql FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND list_contains(?, view_name)",
            [list(VIEW_NAMES)],
        ).fetchall()
    finally:
        catalog.close()
    files: list[str] = []
    for (sql,) in definitions:
        tokens = Dialect.get_or_raise("duckdb").tokenize(sql)
        for index, token in enumerate(tokens[:-1]):
            if token.token_type == TokenType.VAR and token.text.lower() == "read_ndjson" and tokens[index + 1].token_type == TokenType.L_PAREN:
                files += _first_argument_strings(tokens[index + 1 :])
    return list(dict.fromkeys(files))


def _first_argument_strings(tokens) -> list[str]:
    """The string literals of a call's first argument; ``tokens`` start at the call's opening parenthesis."""
    depth, strings = 0, []
    for token in tokens:
        if token.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET):
            depth += 1
        elif token.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth -= 1
        if depth == 0 or (depth == 1 and token.token_type == TokenType.COMMA):
            break
        if token.token_type == TokenType.STRING:
            strings.append(token.text)
    return strings


def add_missing_function(connection: duckdb.DuckDBPyConnection, error: duckdb.Error) -> bool:
    """Define the function a failed statement called, a span macro or a tagger; whether it did (then run the statement again).

    Both come on demand, when DuckDB reports the function missing: importing the recipe compiler (where
    ``score``, ``max_score`` and ``span_count`` are defined) or every tagger module would cost each ``sql``
    and ``shell`` start-up. Neither is saved in ``--database`` files.
    """
    missing = _MISSING_FUNCTION.search(str(error)) if isinstance(error, duckdb.CatalogException) else None
    if missing is None:
        return False
    from dolma_sql.compile.sqlpred import MACROS

    if missing.group(1).lower() in MACROS:
        return _define_span_macros(connection)
    return _add_tagger_function(connection, missing.group(1).lower())


def _define_span_macros(connection: duckdb.DuckDBPyConnection) -> bool:
    """The recipe filters' span macros as temporary DuckDB macros over a view's span column or a JSON span list."""
    from dolma_sql.compile.sqlpred import MACROS, span_macro

    spans = fill(load_sql("views_span_json"), spans=exp.column("spans"))
    try:
        for name in MACROS:
            connection.execute(f"CREATE TEMP MACRO {name}(spans) AS {render(span_macro(name, spans.copy()))}")
    except duckdb.CatalogException:  # already defined: the statement failed for another reason
        return False
    return True


def _add_tagger_function(connection: duckdb.DuckDBPyConnection, function: str) -> bool:
    from dolma_sql import tagging

    by_function = {tagging.make_variable_name(name).lower(): name for name in tagging.registry()}
    name = by_function.get(function)
    if name is None:
        return False
    try:
        tagging.register_duckdb_functions(connection, [name])
    except Exception as failure:  # a broken tagger must not take the corpus views down with it
        from dolma_sql.runtime.progress import warn

        warn(f"tagger SQL function {name} unavailable: {failure}")
        return False
    return True


def widen_object_limit(connection: duckdb.DuckDBPyConnection, error: duckdb.Error) -> bool:
    """After a query met a JSON line longer than the views accept, accept lines four times as long; whether
    it did (then run the query again). The other commands read documents of any size; DuckDB's reader
    reserves twice its limit per thread, so the limit grows only when a corpus needs it."""
    exceeded = _OBJECT_TOO_LARGE.search(str(error))
    if exceeded is None:
        return False
    try:
        current = connection.execute(f"SELECT {render(_object_limit())}").fetchall()[0][0]
        if int(exceeded.group(1)) != current or current >= OBJECT_LIMIT_CAP:
            return False  # not the views' limit (a query's own error() can say anything), or DuckDB's largest
        connection.execute(f"SET VARIABLE {OBJECT_LIMIT_VARIABLE} = {min(current * 4, OBJECT_LIMIT_CAP)}")
    except duckdb.Error:  # e.g. a transaction the failure aborted: nothing can run again in it
        return False
    return True


def explain_error(error: duckdb.Error, corpus: Corpus | None, connection: duckdb.DuckDBPyConnection) -> DolmaSqlError:
    """A user-facing error for a failed query on ``connection``: DuckDB's message, or the exact misaligned or malformed line."""
    message = str(error)
    if corpus is not None and MISALIGNED in message:
        located = find_misalignment(corpus)
        if located is not None:
            return located
    malformed = _MALFORMED_IN_FILE.search(message)
    if malformed and malformed.group(1) in view_files(connection):  # a query's own error() must not make us read other files
        located = find_malformed_line(malformed.group(1))
        if located is not None:
            return located
    outside = isinstance(error, duckdb.PermissionException)
    return DolmaSqlError(message, hint=OUTSIDE_SANDBOX_HINT if outside else None)


def find_malformed_line(path: str) -> InputError | None:
    """The error the other commands give for ``path``'s first line that is not valid UTF-8 or a JSON object
    (DuckDB names the line after it); only on the error path."""
    try:
        for batch in iter_line_batches(path):
            raise_first_malformed(batch)
    except InputError as error:
        return error
    return None


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
                        f"has {_id_text(attr_id)} but {doc_path}:{number} has {_id_text(doc_id)}"
                        if doc_line is not None and attr_line is not None
                        else f"ends before {doc_path}, whose line {number} has {_id_text(doc_id)}"
                        if attr_line is None
                        else f"has {_id_text(attr_id)} but {doc_path} ends at line {number - 1}"
                    )
                    return InputError(
                        f"attribute line is not aligned with its document: {what}",
                        path=attr_path,
                        line=number,
                        hint=f"re-create attributes/{attribute_set.name} from these documents (dolma-sql tag), or leave it out",
                    )
    return None


def _id_text(value: str | int | None) -> str:
    return "no id" if value is None else f"id {value!r}"
