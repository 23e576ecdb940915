"""jq filters end to end in DuckDB: the contract's §4.7 truth table, every row."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compile_helpers import kept, run
from dolma_sql.errors import CompileError

ALL = ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]
IF_SCORE = (
    '.attributes.x | if type == "array" and length > 0 and .[0] != null and .[0][2] != null '
    "then .[0][2] < 0.8 else false end"
)

# (expression, kept by dolma-sql, upstream behaviour when different)
TRUTH_TABLE = [
    (".attributes.flag", ["d1"], None),
    (".attributes.n", ["d1"], None),
    (".attributes.s", ["d1"], None),
    (".attributes.x", ["d1", "d2", "d4", "d6"], None),
    # Deviation: `null | .[2]` is null (real jq), so d3/d5/d7 give `null >= 0.5`, false; upstream fails on d3.
    (".attributes.x[0][2] >= 0.5", ["d1", "d4"], "error on d3"),
    ("try (.attributes.x[0][2] >= 1.0) catch false", ["d4"], None),
    (".attributes.x[0][2] == 1", ["d4"], "error on d3"),
    (IF_SCORE, ["d1", "d2", "d6"], None),
    ("(.attributes.x // []) | map(.[2]) | add > 0.5", ["d1", "d4", "d6"], None),
    ('.attributes | has("flag")', ["d1", "d2", "d3"], None),
    # Deviation: docs without metadata give `null < 500`, true in jq ordering; upstream fails on d5.
    (".metadata.length < 500", ["d1", "d3", "d5", "d6", "d7"], "d1, d3, then error on d5"),
    (".attributes.missing.deeper", [], "error"),
    (".attributes?.missing?.deeper?", [], None),
    ("empty", [], None),
    ("true, false", [], None),
    ("false, true", [], None),
    ("0", [], None),
    ("0.0", [], None),
    ('""', [], None),
    ("{}", [], None),
    ("[]", [], None),
    ("[0]", ALL, None),
    (".text | length", ALL, None),
    # More of the supported subset.
    ('.metadata.lang // "" | test("^e")', ["d1"], None),
    ('.metadata.lang // "none" | startswith("no")', ["d2", "d3", "d4", "d5", "d6", "d7"], None),
    (".attributes.x | length == 2", ["d6"], None),
    ("(.attributes.x // []) | map(.[2] > 0.5) | any", ["d1", "d4", "d6"], None),
    (".attributes.x // [] | all(.[2] > 0.1)", ["d1", "d2", "d3", "d4", "d5", "d6", "d7"], None),
    (".attributes.x[]? | .[2] > 0.5", ["d1", "d4"], None),
    ("[.attributes.x[]? | select(.[2] > 0.5)] | length > 0", ["d1", "d4", "d6"], None),
    (".attributes.n + 1 > 1", ["d1"], None),
    ("(.attributes.n // 0) * 2 - 1 == 9", ["d1"], None),
    (".attributes | keys | length > 1", ["d1", "d2", "d3"], None),
    ('.attributes.s | tostring == "abc"', ["d1"], None),
    (".attributes.flag | not", ["d2", "d3", "d4", "d5", "d6", "d7"], None),
    ('.attributes.x | type == "null"', ["d5", "d7"], None),
    (".attributes.x[-1][2] >= 1", ["d4", "d6"], None),
    ('if .attributes.n then "yes" elif .attributes.s then "s" else "" end', ["d1", "d2"], None),
    ('.attributes["flag"]', ["d1"], None),
    (".attributes.n / 0 > 1 // true", ALL, None),
    ("try error(\"x\") catch true", ALL, None),
    # select emits `.` once per truthy output of its condition
    ("[.attributes.x[]? | select(.[2] > 0.5, .[2] > 0.9)] | length == 2", ["d4", "d6"], None),
    ("[.attributes.x[]? | .[2]] | add // 0 | . > 0.5 and . < 1", ["d1"], None),
    # one branch per output of the condition, with jq truthiness (0 and "" are true)
    ("if (.attributes.n, .attributes.s) then 1 else 0 end", ["d1", "d2"], None),
]


@pytest.mark.parametrize("split", [False, True], ids=["doc-attributes", "attr_0"])
@pytest.mark.parametrize("expression,expected,upstream", TRUTH_TABLE, ids=[row[0] for row in TRUTH_TABLE])
def test_truth_table(expression, expected, upstream, split):
    assert kept(include=[expression], syntax="jq", split=split) == expected


@pytest.mark.parametrize("split", [False, True], ids=["doc-attributes", "attr_0"])
def test_exclude_uses_upstream_truthiness(split):
    # as upstream, an exclude drops when ANY output is truthy (0, "" and [] are not); no output keeps
    assert kept(exclude=[".attributes.n"], syntax="jq", split=split) == ["d2", "d3", "d4", "d5", "d6", "d7"]
    assert kept(exclude=["true, false"], syntax="jq", split=split) == []
    assert kept(exclude=["false, 0, \"\", [], {}, null"], syntax="jq", split=split) == ALL
    assert kept(exclude=["empty"], syntax="jq", split=split) == ALL
    assert kept(exclude=[".attributes.x[]? | .[2] > 0.5"], syntax="jq", split=split) == ["d2", "d3", "d5", "d7"]


def test_include_and_exclude():
    include = [".attributes.x[0]", ".attributes.flag == true"]
    exclude = [".attributes.x[0][2] > 0.9", ".metadata.length == 600"]
    # jq compares numbers by value everywhere, so 600.0 == 600 (d4 is dropped by its score anyway)
    assert kept(include=include, exclude=exclude, syntax="jq") == ["d1", "d6"]


def test_runtime_error_fails_with_rule_and_row():
    with pytest.raises(duckdb.Error) as caught:
        kept(include=['error("boom")'], syntax="jq")
    assert "streams[0].filter.include[0]" in str(caught.value)
    assert "row 0" in str(caught.value)


def test_runtime_error_only_where_reached():
    # evaluation is lazy as upstream: the erroring exclude is never reached when the include rejects
    include = [".attributes.flag == true"]
    exclude = ['.attributes.flag | if . then false else error("unreachable") end']
    assert kept(include=include, exclude=exclude, syntax="jq") == ["d1"]
    with pytest.raises(duckdb.Error, match="row 1"):
        kept(exclude=['.attributes.flag | if . then false else error("x") end'], syntax="jq")


# jq's order: null < false < true < numbers < strings < arrays < objects, numbers by value, strings by code point
# (two arrays, or two objects, compare by their JSON text, not element by element: see the README)
ORDERED = [None, False, True, -1.5, 0, 2, 10, "", "a", "b", "é", [1, 2], {"a": 1}]


def test_values_of_every_type_compare_in_jq_order():
    """``<`` between values of any two types, and against a number literal (a path of its own)."""
    from compile_helpers import batch_table

    pairs = [(i, j) for i in range(len(ORDERED)) for j in range(len(ORDERED))]  # positions: False == 0 in Python
    docs = [{"id": str(n), "text": "t", "a": ORDERED[i], "b": ORDERED[j]} for n, (i, j) in enumerate(pairs)]
    rows = run(batch_table(docs), include=[".a < .b"], syntax="jq")
    assert [r["keep"] for r in rows] == [i < j for i, j in pairs]
    against_two = run(batch_table(docs[:: len(ORDERED)]), include=[".a < 2"], syntax="jq")
    assert [r["keep"] for r in against_two] == [i < ORDERED.index(2) for i in range(len(ORDERED))]


def test_type_error_is_a_runtime_error():
    with pytest.raises(duckdb.Error, match="filter.exclude.0."):
        kept(exclude=[".attributes.s | .[0]"], syntax="jq")  # d1: indexing a string


@pytest.mark.parametrize(
    "expression,message,position",
    [
        (".[", "expected", 2),
        (".a | reduce .[] as $x (0; . + $x)", "`reduce` is not supported", 5),
        ("..", "recursive descent `..` is not supported", 0),
        (".a | foo", "`foo/0` is not supported", 5),
        ('{"a": 1}', "object construction", 0),
        (".a[1:2]", "slices", 4),
        ('.a | test("(")', "invalid regular expression", 10),
        ('.a | test("(?=a)")', "invalid regular expression: invalid perl operator", 10),  # RE2 has no lookaround
        ('.a | test("(a)\\\\1")', "invalid regular expression: invalid escape sequence", 10),
        ("$x", "variables", 0),
        (".a == 1 == 2", "do not chain", 8),
    ],
)
def test_rejected(expression, message, position):
    with pytest.raises(CompileError) as caught:
        kept(include=[expression], syntax="jq")
    assert message in str(caught.value)
    assert "invalid regular expression" not in message or "RE2" in caught.value.hint
    assert caught.value.position == position
    assert caught.value.path == "streams[0].filter.include[0]"


@pytest.mark.parametrize("pattern", ["\\\\p{L}+", "[[:alpha:]]+", "(?P<word>a)"])
def test_patterns_re2_takes_are_accepted(pattern, recwarn):
    """The patterns are checked by the engine that runs them (RE2), not by another one (Python's ``re`` refused these,
    or warned)."""
    kept(include=[f'.text | test("{pattern}")'], syntax="jq")
    assert not [warning for warning in recwarn if "regular" in str(warning.message) or "nested set" in str(warning.message)]


def test_length_of_an_array_compared_with_zero_ignores_how_the_line_spaces_it():
    """`length > 0` of an array is compiled to a test of its compact text: whitespace in the raw line must not matter."""
    lines = ['{"id":"%d","attributes":{"x":%s}}\n' % (i, x) for i, x in enumerate(["[ ]", "[\n\t]", "[ [0, 1, 0.5] ]", "[]", '"[]"', "{ }"])]
    table = pa.table({"row": pa.array(range(len(lines)), pa.int64()), "doc": pa.array(lines, pa.string())})
    rule = '.attributes.x | if type == "array" and length > 0 then true else false end'
    assert [r["keep"] for r in run(table, include=[rule], syntax="jq")] == [False, False, True, False, False, False]
    assert [r["keep"] for r in run(table, include=['.attributes.x | length > 0'], syntax="jq")] == [False, False, True, False, True, False]


WHITE_SPACE = {*map(chr, range(0x09, 0x0E)), " ", "\x85", "\xa0", "\u1680", *map(chr, range(0x2000, 0x200B)), "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"}
"""Unicode's White_Space property (PropList.txt), what ``\\s`` matches in upstream's engine (Rust's ``regex``)."""


@settings(max_examples=400, deadline=None)
@given(st.characters(max_codepoint=0xFFFF, blacklist_categories=("Cs",)))
def test_digit_and_space_classes_mean_what_upstreams_engine_means(char):
    """RE2's ``\\d`` and ``\\s`` are ASCII; the filters write them as Unicode ``Nd`` and White_Space, as upstream reads them."""
    import unicodedata

    from dolma_sql.compile.jsonsql import unicode_classes

    expected = {
        r"^\s$": char in WHITE_SPACE, r"^\S$": char not in WHITE_SPACE, r"^[\s,]$": char in WHITE_SPACE or char == ",",
        r"^[^\s]$": char not in WHITE_SPACE, r"^\d$": unicodedata.category(char) == "Nd", r"^\D$": unicodedata.category(char) != "Nd",
    }
    connection = duckdb.connect()
    for pattern, matches in expected.items():
        assert connection.execute("SELECT regexp_matches(?, ?)", [char, unicode_classes(pattern)]).fetchone()[0] == matches, (pattern, hex(ord(char)))


def test_a_filter_with_a_space_class_matches_a_no_break_space():
    table = pa.table({"row": pa.array([0, 1], pa.int64()), "doc": pa.array(['{"id":"a","text":"price\\u00a0100"}\n', '{"id":"b","text":"price100"}\n'])})
    assert [r["keep"] for r in run(table, include=['.text | test("\\\\s\\\\d")'], syntax="jq")] == [True, False]
    assert [r["keep"] for r in run(table, include=["$.text[?(@ ~= '.*\\\\s.*')]"])] == [True, False]
