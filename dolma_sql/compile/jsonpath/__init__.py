"""dolma's JSONPath subset (jsonpath-rust 0.3.5 grammar): parser and translation to DuckDB.

A path "matches" when it selects at least one value, whatever the value (``false``, ``0``,
``null`` count). Differences from upstream, on purpose: numbers compare by value (``1 == 1.0``
and ``1 >= 1.0`` are true; upstream says false), and double-quoted strings are accepted.
Not supported (compile-time errors): recursive descent ``..``, negative indexes (upstream rejects
them too), ``anyOf``/``noneOf``/``subsetOf``, and functions such as ``length()``.

Modules: ``parser`` builds the tree of ``syntax``; ``translate`` (a handler per node type) turns it
into SQL.
"""

from dolma_sql.compile.jsonpath.parser import parse
from dolma_sql.compile.jsonpath.translate import JsonPathCompiler

__all__ = ["JsonPathCompiler", "parse"]
