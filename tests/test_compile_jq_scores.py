"""dolma's guarded score test in jq (``if type == "array" and … then .[0][2] < 0.8 else false end``).

It compiles to a plan of its own (``dolma_sql/compile/jq/scores.py``); these tests hold it to the
general translation on random values, errors included, and to the plan it is there for.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compile_helpers import batch_table, run
from test_compile_oracle import compare_with_upstream
from dolma_sql.compile import compile_stream

# attribute values near the form the test expects, and far from it
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, -1.5, 2.5, 1e300]), st.sampled_from(["", "x", "0.5"]))
elements = st.one_of(scalars, st.lists(scalars, max_size=4), st.dictionaries(st.sampled_from(["0", "2", "a"]), scalars, max_size=2))
values = st.one_of(
    scalars,
    st.lists(elements, max_size=3),
    st.lists(st.lists(st.one_of(scalars, st.lists(scalars, max_size=2)), max_size=4), max_size=2),
    st.dictionaries(st.sampled_from(["0", "a"]), elements, max_size=2),
)
documents = st.lists(st.dictionaries(st.sampled_from(["k", "other"]), values, max_size=2), min_size=1, max_size=8)


@st.composite
def score_tests(draw):
    """The form as dolma writes it, over paths of one to three indexes, with any comparison and number."""
    path = draw(st.lists(st.integers(0, 2), min_size=1, max_size=3))
    steps = ["".join(f"[{i}]" for i in path[:n]) for n in range(1, len(path) + 1)]
    guards = ['type == "array"'] + (["length > 0"] if draw(st.booleans()) else []) + [f".{s} != null" for s in steps]
    op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
    number = draw(st.sampled_from(["0.5", "0", "2", "-1.5", "1e300"]))
    comparison = f".{steps[-1]} {op} {number}" if draw(st.booleans()) else f"{number} {op} .{steps[-1]}"
    return f"if {' and '.join(guards)} then {comparison} else false end"


def outcomes(expression: str, docs: list[dict], split: bool) -> list[str]:
    """Per document: "true", "false" or "error" (jq's ``try`` tells an error apart)."""
    caught = f'(try ({expression}) catch "error")'
    include = [f"{caught} == true", f'{caught} == "error"']
    if split:
        table = batch_table([{"id": str(i), "text": "t"} for i in range(len(docs))], [[{"id": str(i), "attributes": d} for i, d in enumerate(docs)]])
    else:
        table = batch_table([{"id": str(i), "text": "t", "attributes": d} for i, d in enumerate(docs)])
    rows = run(table, include=include, syntax="jq", n_attribute_sets=int(split), rule_columns=True)
    return ["error" if r["include_1"] else "true" if r["include_0"] else "false" for r in rows]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(test=score_tests(), docs=documents, split=st.booleans())
def test_score_test_agrees_with_the_general_translation(test, docs, split):
    # `[.attributes.k] | .[0]` is the same value, but not a document path, so it takes the general translation
    assert outcomes(f".attributes.k | {test}", docs, split) == outcomes(f"[.attributes.k] | .[0] | {test}", docs, split)


def test_score_test_on_the_contract_values():
    docs = [{"k": [[0, 5, 0.7]]}, {"k": [[0, 5, 0.3]]}, {"k": []}, {}, {"k": None}, {"k": [[0, 5]]}, {"k": [5]},
            {"k": [[0, 5, "x"]]}, {"k": [[0, 5, True]]}, {"k": {"0": [0, 5, 0.1]}}, {"k": [None, [0, 5, 0.1]]}]
    test = '.attributes.k | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 0.5 else false end'
    expected = ["false", "true", "false", "false", "false", "false", "error", "false", "true", "false", "false"]
    assert outcomes(test, docs, split=False) == expected
    assert outcomes(test, docs, split=True) == expected


def test_score_test_fails_where_the_attributes_are_no_object():
    test = '.attributes.k | if type == "array" and .[0] != null and .[0][2] != null then .[0][2] > 0.5 else false end'
    weird = ["s", 5, [1], None, {}]  # `.attributes.k` fails on a string, a number and an array
    assert outcomes(test, weird, split=False) == ["error", "error", "error", "false", "false"]
    assert outcomes(test, weird, split=False) == outcomes(f"[.attributes.k] | .[0] | {test.split(' | ', 1)[1]}", weird, split=False)


def test_score_test_reads_only_the_score_and_its_attribute():
    """The plan JSONPath's rule gets: no extraction of ``.[0]`` for the guards, no lambda."""
    test = '.attributes.k | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.5 else false end'
    query = compile_stream(include=[], exclude=[test], syntax="jq", spans=[], n_attribute_sets=2)
    extracted = {path for path in ('$."attributes"."k"', '$."attributes"."k"[0][2]', '$."attributes"."k"[0]') if f"'{path}'" in query.sql}
    assert extracted == {'$."attributes"."k"', '$."attributes"."k"[0][2]'}
    assert "LAMBDA" not in query.sql


def test_other_forms_keep_the_general_translation():
    """Without a guard for every step, the test means something else (``null | .[2]`` is no error here,
    an index into a number is), and it is compiled the general way."""
    docs = [{"k": [5]}, {"k": [[0, 5, 0.7]]}, {"k": [None]}]
    test = '.attributes.k | if type == "array" and .[0][2] != null then .[0][2] > 0.5 else false end'
    assert outcomes(test, docs, split=False) == ["error", "true", "false"]
    assert "LAMBDA" in compile_stream(include=[test], exclude=[], syntax="jq", spans=[], n_attribute_sets=0).sql


@pytest.mark.oracle
def test_score_tests_agree_with_upstream(oracle, tmp_path):
    """Against upstream's jaq, on values that make no test fail (an error fails upstream's whole shard)."""
    rng = random.Random(2112)
    numbers = [-2, 0, 1, 3, 0.5, 2.5, -1.5]  # integers or non-integral floats: upstream never equates 2 and 2.0
    near = [None, [], [None], [[]], [[0, 5]], [[0, 5, None]], [[0, 5, "x"]], [[0, 5, True]], [[0, 5, [1]]], "s", 3, {"a": 1}]

    def value():
        if rng.random() < 0.6:
            return [[rng.randrange(5), rng.randrange(9), rng.choice(numbers)] for _ in range(rng.randint(1, 2))]
        return rng.choice(near)

    docs = [{"id": str(i), "text": "t", "attributes": {k: value() for k in rng.sample(["a", "b"], rng.randrange(3))}} for i in range(120)]
    rules = []
    for _ in range(12):
        key, op, number = rng.choice(["a", "b"]), rng.choice(["<", "<=", ">", ">=", "==", "!="]), rng.choice(["0.5", "2", "-1.5"])
        length = " and length > 0" if rng.random() < 0.7 else ""
        rules.append((f'.attributes.{key} | if type == "array"{length} and .[0] != null and .[0][2] != null '
                      f"then .[0][2] {op} {number} else false end", rng.random() < 0.5))
    mismatches, compared = compare_with_upstream(oracle, tmp_path, docs, rules, "jq")
    assert compared == 2 * len(rules)
    assert not mismatches
