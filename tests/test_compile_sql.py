"""`syntax: sql`: native DuckDB predicates over the merged document, and what is refused."""

from __future__ import annotations

import pytest

from compile_helpers import kept
from dolma_sql.errors import CompileError


@pytest.mark.parametrize("split", [False, True], ids=["doc-attributes", "attr_0"])
@pytest.mark.parametrize(
    "expression,expected",
    [
        ("score(attributes.x) >= 0.5", ["d1", "d4"]),
        ("score(attributes['x']) >= 1.0", ["d4"]),
        ("max_score(attributes.x) >= 1", ["d4", "d6"]),
        ("span_count(attributes.x) = 0", ["d3", "d5", "d7"]),
        ("attributes.flag IS NOT NULL", ["d1", "d2", "d3"]),
        ("CAST(metadata.length AS DOUBLE) < 500", ["d1"]),
        ("metadata.lang->>'$' = 'en'", ["d1"]),
        ("id IN ('d2', 'd7')", ["d2", "d7"]),
        ("length(text) = 5 AND id LIKE 'd%' AND NOT id = 'd3'", ["d1", "d2", "d4", "d5", "d6", "d7"]),
        ("regexp_matches(id, '[13]')", ["d1", "d3"]),
        ("CASE WHEN id = 'd1' THEN TRUE END", ["d1"]),  # NULL is no match
        ("source IS NULL AND metadata IS NULL", ["d5", "d6", "d7"]),
    ],
)
def test_predicates(expression, expected, split):
    assert kept(include=[expression], syntax="sql", split=split) == expected


def test_exclude():
    assert kept(exclude=["score(attributes.x) < 0.5"], syntax="sql") == ["d1", "d3", "d4", "d5", "d7"]


@pytest.mark.parametrize(
    "expression,message,position",
    [
        ("(SELECT 1) = 1", "subqueries are not allowed", 1),
        ("EXISTS (SELECT 1)", "subqueries are not allowed", None),
        ("read_csv('x') IS NULL", "function `read_csv` is not allowed", 0),
        ("current_setting('threads') = '1'", "function `current_setting` is not allowed", 0),
        ("nonsense > 1", "unknown name `nonsense`", 0),
        ("text.foo = 1", "unknown name `text.foo`", 0),
        ("id = '1'; DROP TABLE batch", "exactly one expression", 8),
        ("DROP TABLE batch", "is not allowed in a SQL filter", None),
        ("COPY batch TO 'x.csv'", "is not allowed in a SQL filter", None),
        ("ATTACH 'x.db'", "is not allowed in a SQL filter", None),
        ("id = (1", "invalid SQL expression", None),
        ("text + 1 > 2", "invalid SQL filter", 0),
        ("score(attributes.x, 2) > 1", "takes one argument", None),
        ("CAST(text AS MYTYPE) IS NULL", "unknown type `MYTYPE`", 13),
        ("""CAST(1 AS "VARINT) IS NULL OR (SELECT 1) = 1 OR CAST(1 AS INT") IS NULL""", "unknown type `VARINT) IS NULL OR", 11),
        ("""CAST(1 AS "INT) IS NULL), FALSE); SELECT 1 --") IS NULL""", "`BLOCK` is not allowed", None),
    ],
)
def test_rejected(expression, message, position):
    with pytest.raises(CompileError) as caught:
        kept(include=["id IS NOT NULL", expression], syntax="sql")
    assert message in str(caught.value)
    assert caught.value.path == "streams[0].filter.include[1]"
    if position is not None:
        assert caught.value.position == position


def test_sql_that_does_not_read_back_as_the_checked_tree_is_refused():
    """The last check alone: a user-defined type that sqlglot writes out unquoted would let its text run as SQL."""
    import sqlglot

    from dolma_sql.compile.sqlpred import SqlPredicateCompiler

    compiler = SqlPredicateCompiler.__new__(SqlPredicateCompiler)  # the tree as parsed, none of the node checks run
    compiler.text, compiler.config_path = """CAST(1 AS "VARINT) IS NULL), FALSE); COPY (SELECT 1) TO 'x'; SELECT 1 --") IS NULL""", None
    compiler.tree = sqlglot.parse_one(compiler.text, read="duckdb")
    with pytest.raises(CompileError, match="does not read back as the one expression"):
        compiler._check_rendering()


@pytest.mark.parametrize("expression", [
    "if(text = 'a', true, false)", "metadata->'$.a'->>'$.b' = 'x'", "trim(BOTH 'x' FROM text) = 'a'",
    "array_length(json_keys(metadata)) >= 0", "strpos(text, 'a') >= 0",
])
def test_filters_that_sqlglot_rewrites_still_read_back(expression):
    """``IF`` written as ``CASE``, chained arrows, ``TRIM(BOTH ...)``: sqlglot's rewrites are a fixed point, not an escape."""
    kept(include=[expression], syntax="sql")


@pytest.mark.parametrize("expression", ["text = 'abc", 'text = "abc', "text /* x", 'text::"my""type" IS NULL'])
def test_an_unclosed_quote_or_comment_is_a_compile_error(expression):
    with pytest.raises(CompileError, match="invalid SQL expression"):
        kept(include=[expression], syntax="sql")
