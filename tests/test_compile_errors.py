"""Compile errors show the expression, a caret at the problem and the config path."""

from __future__ import annotations

import pickle

import pytest

from dolma_sql.compile import compile_stream
from dolma_sql.errors import CompileError


def error_of(*, syntax="jsonpath", include=(), exclude=()) -> CompileError:
    with pytest.raises(CompileError) as caught:
        compile_stream(include=list(include), exclude=list(exclude), syntax=syntax, spans=[], n_attribute_sets=1,
                       config_path="streams[0]")
    return caught.value


def test_jsonpath_message():
    error = error_of(exclude=["$.a", "$.attributes.x[-1]"])
    assert str(error) == (
        "streams[0].filter.exclude[1]: negative indexes are not supported (upstream rejects them too)\n"
        "    $.attributes.x[-1]\n"
        "                   ^"
    )


def test_jsonpath_unparseable():
    error = error_of(include=["$.attributes[?(@.x > )]"])
    assert error.path == "streams[0].filter.include[0]"
    assert error.position == 21
    assert "expected `@`, `$`, a number" in str(error)


def test_jq_message():
    error = error_of(syntax="jq", include=[".["])
    assert str(error) == (
        "streams[0].filter.include[0]: invalid jq: unexpected `end of expression`\n"
        "    .[\n"
        "      ^"
    )


def test_sql_message():
    error = error_of(syntax="sql", exclude=["text = 'a' AND (SELECT 1) = 1"])
    assert str(error).startswith("streams[0].filter.exclude[0]: subqueries are not allowed in a SQL filter\n")
    assert str(error).endswith("\n    text = 'a' AND (SELECT 1) = 1\n                    ^")


def test_errors_survive_pickling():
    # the mixer compiles in worker processes; errors must cross process boundaries intact
    error = pickle.loads(pickle.dumps(error_of(include=["$..x"])))
    assert error.path == "streams[0].filter.include[0]"
    assert "recursive descent" in str(error)
