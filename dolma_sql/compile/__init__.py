"""Compilers from dolma filter/span expressions (JSONPath, jq, SQL) to sqlglot expressions.

``compile_stream`` turns one stream's ``filter`` and ``span_replacement`` into a single DuckDB
query over the mixer's ``batch`` relation (see ``stream.py``).
"""

from dolma_sql.compile.stream import SpanRule, StreamQuery, compile_stream

__all__ = ["SpanRule", "StreamQuery", "compile_stream"]
