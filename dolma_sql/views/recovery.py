"""What a failed query leads to: a function defined on demand, a wider JSON line limit, or an error naming the exact line."""

from __future__ import annotations

import re

import duckdb
from sqlglot import exp

from dolma_sql.errors import DolmaSqlError, InputError
from dolma_sql.formats.lines import iter_line_batches, raise_first_malformed
from dolma_sql.sql import fill, load_sql, render
from dolma_sql.views.connection import view_files
from dolma_sql.views.corpus import Corpus
from dolma_sql.views.statements import OBJECT_LIMIT_VARIABLE, object_limit


MISALIGNED = "dolma-sql: misaligned attributes"

OBJECT_LIMIT_CAP = 2**32 - 1
"""The largest ``maximum_object_size`` DuckDB takes (a UINTEGER)."""

OUTSIDE_SANDBOX_HINT = "queries may read only the corpus files and the --database file; name other files or folders with --allow-read PATH"

_MISSING_FUNCTION = re.compile(r'Function with name "?(\w+)"? does not exist')

_OBJECT_TOO_LARGE = re.compile(r'"maximum_object_size" of (\d+) bytes exceeded')

_MALFORMED_IN_FILE = re.compile(r'Malformed JSON in file "(.+?)", at byte \d+ in line \d+')


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
    spec = tagging.get_tagger(name)
    if spec.check is not None:
        try:
            spec.check({})  # its libraries and models: sql has no options to name a tagger's models
        except DolmaSqlError as error:
            raise DolmaSqlError(
                f"tagger {name} cannot run as a SQL function: {error.message}",
                hint=f"tag the corpus with it (dolma-sql tag --taggers {name}, {error.hint}) and query its attributes",
            ) from None
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
        current = connection.execute(f"SELECT {render(object_limit())}").fetchall()[0][0]
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
    if isinstance(error, duckdb.OutOfMemoryException):  # DuckDB's own advice, SET memory_limit, is refused in the sandbox
        return DolmaSqlError(message.split("\n")[0], hint="raise --memory-limit (queries spill to disk past it), or select fewer rows or columns")
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
