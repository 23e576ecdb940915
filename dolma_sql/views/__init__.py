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

Modules: ``corpus`` finds the files, sets and keys; ``statements`` writes the views' SQL; ``connection``
makes connections with them and lists the files they read; ``recovery`` handles a failed query.
"""

from dolma_sql.views.connection import connect, open_views, view_files
from dolma_sql.views.corpus import Corpus, discover
from dolma_sql.views.recovery import add_missing_function, explain_error, widen_object_limit
from dolma_sql.views.statements import view_statements

__all__ = ["Corpus", "add_missing_function", "connect", "discover", "explain_error", "open_views", "view_files", "view_statements", "widen_object_limit"]
