"""DuckDB connections sealed by the engine itself: SQL that a user wrote, or that dolma-sql made from a recipe, may
read no file, reach no network, install or load no extension, and change no setting back.

A recipe's connections get their rows from Python (registered Arrow tables) and need nothing else, so they are
sealed whole (:func:`sealed_connection`). ``dolma-sql sql`` grants the corpus files first, then seals
(:func:`seal`; see :mod:`dolma_sql.query`).
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb

SEALING = (
    ("autoinstall_known_extensions", "false"),
    ("autoload_known_extensions", "false"),
    ("enable_logging", "false"),
    ("enable_external_access", "false"),
    ("lock_configuration", "true"),
)
"""In this order: with external access off DuckDB refuses to change the lists of allowed paths, and once the
configuration is locked no statement can change any setting (``SET``, ``RESET``, ``PRAGMA``, ``enable_logging()``)."""


def seal(connection: duckdb.DuckDBPyConnection) -> None:
    """Seal ``connection`` (after granting what it may read: ``allowed_paths``, ``allowed_directories``)."""
    for name, value in SEALING:
        connection.execute(f"SET {name} = {value}")


def sealed_connection(*, threads: int | None = None, settings: Mapping[str, str] | None = None) -> duckdb.DuckDBPyConnection:
    """A new in-memory connection with ``threads`` and ``settings`` (name -> value), then sealed."""
    connection = duckdb.connect(config={"threads": threads} if threads else {})
    for name, value in (settings or {}).items():
        connection.execute(f"SET {name} = '{value}'")
    seal(connection)
    return connection
