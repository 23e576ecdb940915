"""DuckDB connections with the corpus views, and the files those views read (what a sandbox may read)."""

from __future__ import annotations

import os

import duckdb
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

from dolma_sql.errors import ConfigError, DolmaSqlError
from dolma_sql.storage import urls
from dolma_sql.storage.remote import filesystem_of, protocol
from dolma_sql.views.corpus import Corpus, discover
from dolma_sql.views.statements import END_OF_FILES, view_statements


VIEW_NAMES = ("documents", "attributes", "spans")

NO_EXTENSION_DOWNLOADS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
"""A URL DuckDB knows (``s3://``) must not make it download an extension: the registered filesystems serve it."""


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
        saved = view_files(connection)
        register_filesystems(connection, saved)  # the remote files of views saved earlier
        _check_end_marker(saved, database)
    if threads:
        connection.execute(f"SET threads = {int(threads)}")
    return connection


def _check_end_marker(files: list[str], database: str) -> None:
    """The attributes view of a saved database reads the end marker of the dolma-sql that saved it; one that another
    install saved, since removed, cannot be read."""
    marker = urls.name(END_OF_FILES)
    for path in files:
        if urls.name(path) == marker and path != END_OF_FILES and not os.path.isfile(path):
            raise ConfigError(
                f"the views of {database} were saved by a dolma-sql installed elsewhere (they read {path}, which is gone)",
                path="--database",
                hint="save the views again: --documents GLOB --database FILE",
            )


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
