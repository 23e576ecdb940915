"""JSONPath filters end to end in DuckDB: the contract's §4.6 truth table, every row."""

from __future__ import annotations

import pytest

from compile_helpers import kept
from dolma_sql.errors import CompileError

ALL = ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]

# (expression, kept by dolma-sql, kept by upstream when different)
TRUTH_TABLE = [
    ("$.attributes[?(@.x && @.x[0] && @.x[0][2] >= 0.5)]", ["d1", "d4"], None),
    ("$.attributes[?(@.x[0][2] >= 0.5)]", ["d1", "d4"], None),
    ("$.attributes[?(@.x[0][2] >= 1)]", ["d4"], None),
    # Deviation: numbers compare by value, so the integer score 1 satisfies `>= 1.0`.
    ("$.attributes[?(@.x[0][2] >= 1.0)]", ["d4"], []),
    ("$.attributes[?(@.x[0][2] == 1)]", ["d4"], None),
    ("$.attributes[?(@.x[0][2] <= 1.0)]", ["d1", "d2", "d4", "d6"], ["d1", "d2", "d6"]),
    ("$.attributes[?(@.x[0][2] <= 1)]", ["d1", "d2", "d4", "d6"], None),
    ("$.attributes[?(@.x[1][2] >= 1)]", ["d6"], []),
    ("$.attributes[?(@.x[1][2] >= 1.0)]", ["d6"], None),
    ("$.attributes.x[?(@[2] > 0.5)]", ["d1", "d4", "d6"], None),
    ("$.attributes[?(@.x[0][2] > 0.5 || @.flag == false)]", ["d1", "d2", "d4"], None),
    ("$.attributes[?(@.flag == true)]", ["d1"], None),
    ("$.attributes[?(@.flag == false)]", ["d2"], None),
    ("$.attributes[?(@.flag == null)]", ["d3"], None),
    ("$.attributes[?(@.flag)]", ["d1", "d2", "d3"], None),
    ("$.attributes[?(!@.flag)]", ["d4", "d5", "d6", "d7"], None),
    ("$.attributes[?(@.n)]", ["d1", "d2"], None),
    ("$.attributes.flag", ["d1", "d2", "d3"], None),
    ("$.attributes.x", ["d1", "d2", "d3", "d4", "d6", "d7"], None),
    ("$.attributes.x[0]", ["d1", "d2", "d4", "d6"], None),
    ("$.attributes.x[*]", ["d1", "d2", "d4", "d6"], None),
    ("$.attributes.x[0][2]", ["d1", "d2", "d4", "d6"], None),
    ("$.attributes.x[0:1]", ["d1", "d2", "d4", "d6"], None),
    ("$.attributes.x[1:]", ["d6"], None),
    ("$.metadata", ["d1", "d2", "d3", "d4"], None),
    ("$.metadata[?(@.length < 500)]", ["d1"], None),
    ("$.metadata[?(@.length == 600)]", ["d2", "d4"], ["d2"]),
    ("$.metadata[?(@.length >= 600)]", ["d2", "d4"], ["d2"]),
    ("$.metadata[?(@.length == 600.0)]", ["d2", "d4"], ["d4"]),
    ("$.metadata[?(@.length > 599.5)]", ["d2", "d4"], None),
    ("$.metadata[?(@.lang == 'en')]", ["d1"], None),
    # Deviation: double-quoted strings are accepted (upstream: parse error, the shard fails).
    ('$.metadata[?(@.lang == "en")]', ["d1"], "parse error"),
    ("$.metadata[?(@.lang ~= 'e.*')]", ["d1"], None),
    ("$.attributes[?(@.n in [5, 6])]", ["d1"], None),
    ("$.attributes[?(@.n nin [5, 6])]", ["d2", "d3", "d4", "d5", "d6", "d7"], None),
    ("$.attributes[?(@.x size 0)]", ["d3", "d5"], None),
    ("$.attributes[?(@.x size 1)]", ["d1", "d2", "d4", "d5"], None),
    ("$.attributes[?(@.x size 2)]", ["d5", "d6"], None),
    ("$['attributes']['flag']", ["d1", "d2", "d3"], None),
    ("$.attributes['flag','n']", ["d1", "d2", "d3"], None),
    ("$.attributes.*", ["d1", "d2", "d3", "d4", "d6", "d7"], None),
    ("$@.attributes[?(@.x && @.x[0] && @.x[0][2] >= 1.0)]", ["d4"], []),
    ("$.attributes[?(@.nonexistent == null)]", [], None),
    ("$.id", ALL, None),
    ("$", ALL, None),
]


@pytest.mark.parametrize("split", [False, True], ids=["doc-attributes", "attr_0"])
@pytest.mark.parametrize("expression,expected,upstream", TRUTH_TABLE, ids=[row[0] for row in TRUTH_TABLE])
def test_truth_table(expression, expected, upstream, split):
    assert kept(include=[expression], split=split) == expected
    if upstream is not None:  # a documented deviation: make sure it really differs
        assert upstream != expected


@pytest.mark.parametrize("split", [False, True], ids=["doc-attributes", "attr_0"])
def test_include_and_exclude(split):
    include = ["$.attributes.x[0]", "$.attributes[?(@.flag == true)]"]
    exclude = ["$.attributes[?(@.x[0][2] > 0.9)]", "$.metadata[?(@.length == 600)]"]
    assert kept(include=include, exclude=exclude, split=split) == ["d1", "d6"]


def test_exclude_only_keeps_the_rest():
    assert kept(exclude=["$.attributes.flag"]) == ["d4", "d5", "d6", "d7"]


@pytest.mark.parametrize(
    "expression,message",
    [
        ("$..n", "recursive descent `..` is not supported"),
        ("$..[?(@.n > 1)]", "recursive descent `..` is not supported"),
        ("$.attributes.x[-1]", "negative indexes are not supported"),
        ("attributes.flag", "must start with `$`"),
        ("$.attributes[?(@.x anyOf [1])]", "`anyOf` operator is not supported"),
        ("$.attributes.x.length()", "functions such as `length()` are not supported"),
        ("$.attributes[?(@.x[*] > 1)]", "only plain keys and indexes"),
        ("$.attributes[?(@.n in 5)]", "`in` needs a literal list"),
        ("$.metadata[?(@.lang ~= '(')]", "invalid regular expression"),
        ("$.metadata[?(@.lang ~= '(?=a)')]", "invalid regular expression: invalid perl operator"),
        ("$.metadata[?(@.lang ~= 'a++')]", "invalid regular expression: bad repetition operator"),
    ],
)
def test_rejected(expression, message):
    with pytest.raises(CompileError) as caught:
        kept(include=[expression])
    assert message in str(caught.value)
    assert "streams[0].filter.include[0]" in str(caught.value)
