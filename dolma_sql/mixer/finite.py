"""NaN and Infinity in attribute lines: an error naming the file, line and attribute.

JSON has neither, but Python's ``json.dumps`` writes ``NaN``, ``Infinity`` and ``-Infinity``, and
DuckDB's reader takes them, so a filter would compare them as numbers (``Infinity > 0.9``) and a span
rule select them. Each attribute batch the mixer reads is searched for those spellings (DuckDB's
``contains`` on their capitals, which attribute lines seldom have); the lines that have one where a
value starts are read by DuckDB as the stream query reads them, to name the value. DuckDB also takes
``nan``, ``inf`` and ``1e999``, which no JSON writer writes: searching for them (lowercase letters are
everywhere in attribute keys) would cost the mixer a few percent more.
"""

from __future__ import annotations

import re
from functools import cache

import duckdb
import numpy as np
import pyarrow as pa

from dolma_sql.engine import sealed_connection
from dolma_sql.errors import InputError
from dolma_sql.formats.lines import LineBatch

SPELLINGS = ("NaN", "NAN", "Inf", "INF")
"""How writers spell NaN and Infinity (``Infinity`` and ``-Infinity`` contain ``Inf``)."""

VALUE = r"[\[,:]\s*[-+]?(?i:nan|inf)"
"""One of them where a JSON value starts (not inside a key such as ``information``)."""

_NON_FINITE_VALUE = f"""
WITH suspects AS (
    SELECT row, line FROM lines
    WHERE ({" OR ".join(f"contains(line, '{spelling}')" for spelling in SPELLINGS)}) AND regexp_matches(line, '{VALUE}')
)
SELECT s.row, t.fullkey, t.atom
FROM suspects AS s, json_tree(s.line) AS t
WHERE t.type = 'DOUBLE' AND NOT isfinite(try_cast(t.atom AS DOUBLE))
ORDER BY s.row, t.id
LIMIT 1
"""

_ATTRIBUTE = re.compile(r'^\$\.attributes\.("(?:[^"\\]|\\.)*"|[^.\[]+)')


@cache
def _connection() -> duckdb.DuckDBPyConnection:
    """The process's connection for the search (the stream query's own may be reading this very batch)."""
    return sealed_connection(threads=1)


def check_finite(batch: LineBatch) -> LineBatch:
    """``batch`` of attribute lines, once no line holds NaN or Infinity (else an :class:`InputError` naming the first)."""
    connection = _connection()
    connection.register("lines", pa.table({"row": np.arange(len(batch.lines), dtype=np.int64), "line": batch.lines}))
    try:
        found = connection.execute(_NON_FINITE_VALUE).fetchall()
    except duckdb.Error:  # a malformed line: reported where the lines are read for the query
        return batch
    finally:
        connection.unregister("lines")
    if not found:
        return batch
    row, path, value = found[0]
    attribute = _ATTRIBUTE.match(path)
    name = attribute.group(1).strip('"') if attribute else path
    raise InputError(
        f"attribute {name!r} holds {value} ({path}): JSON has no NaN or Infinity, and a filter would compare it as a number",
        path=batch.path,
        line=batch.first_line + int(row),
        hint="fix the tagger that wrote this file (Python's json.dumps writes NaN and Infinity unless allow_nan=False)",
    )
