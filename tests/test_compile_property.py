"""Property test: compiled JSONPath filters agree with a small independent Python evaluator.

Random documents and random filters from a small grammar; the reference below implements the
contract's §4.6 semantics directly on Python values (with numbers compared by value).
"""

from __future__ import annotations

import math
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compile_helpers import batch_table, run

MISSING = object()
KEYS = ["a", "b", "c"]

# -- documents ------------------------------------------------------------------------------------
numbers = st.one_of(st.integers(-3, 3), st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0]))
scalars = st.one_of(st.none(), st.booleans(), numbers, st.sampled_from(["", "x", "ab", "é"]))
spans = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9), numbers).map(list), max_size=3)
values = st.one_of(scalars, spans, st.dictionaries(st.sampled_from(KEYS), scalars, max_size=2))
attributes = st.dictionaries(st.sampled_from(KEYS), values, max_size=3)
documents = st.lists(
    st.fixed_dictionaries({"attributes": attributes}, optional={"metadata": st.dictionaries(st.sampled_from(KEYS), scalars, max_size=2)}),
    min_size=1, max_size=6,
)

# -- filters: (text, reference function) ------------------------------------------------------------
literals = st.one_of(
    st.sampled_from([("null", None), ("true", True), ("false", False), ("'x'", "x"), ("''", "")]),
    numbers.map(lambda n: (repr(n), n)),
)
comparisons = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])
relative = st.lists(st.one_of(st.sampled_from(KEYS), st.integers(0, 2)), min_size=1, max_size=3)


def path_text(steps):
    return "".join(f".{s}" if isinstance(s, str) else f"[{s}]" for s in steps)


@st.composite
def idioms(draw):
    """dolma's ``@.x && @.x[0] && @.x[0][2] >= 0.5``: existence tests of a compared path's prefixes, in any order."""
    steps = draw(st.lists(st.one_of(st.sampled_from(KEYS), st.integers(0, 2)), min_size=2, max_size=3))
    op = draw(comparisons)
    literal_text, literal = draw(literals)
    tests = [("@" + path_text(steps[:n]), (lambda prefix: lambda at: walk(at, prefix) is not MISSING)(steps[:n])) for n in range(1, len(steps))]
    tests.append((f"@{path_text(steps)} {op} {literal_text}", lambda at: compare(op, walk(at, steps), literal)))
    tests = draw(st.permutations(tests))
    return "(" + " && ".join(t for t, _ in tests) + ")", lambda at: all(f(at) for _, f in tests)


@st.composite
def conditions(draw, depth=0):
    kind = draw(st.sampled_from(["exists", "not", "compare", "size", "in", "regex", "idiom"] + (["and", "or"] if depth < 2 else [])))
    if kind == "idiom":
        return draw(idioms())
    if kind in ("and", "or"):
        left, right = draw(conditions(depth + 1)), draw(conditions(depth + 1))
        op = "&&" if kind == "and" else "||"
        fn = (lambda l, r: lambda at: l[1](at) and r[1](at)) if kind == "and" else (lambda l, r: lambda at: l[1](at) or r[1](at))
        return f"({left[0]} {op} {right[0]})", fn(left, right)
    steps = draw(relative)
    text = "@" + path_text(steps)
    get = lambda at: walk(at, steps)  # noqa: E731
    if kind == "exists":
        return text, lambda at: get(at) is not MISSING
    if kind == "not":
        return "!" + text, lambda at: get(at) is MISSING
    if kind == "size":
        n = draw(st.integers(0, 2))
        return f"{text} size {n}", lambda at: size(get(at), n)
    if kind == "in":
        options = draw(st.lists(literals, min_size=1, max_size=3))
        negate = draw(st.booleans())
        listed = "[" + ", ".join(t for t, _ in options) + "]"
        found = lambda at: any(equal(get(at), v) for _, v in options)  # noqa: E731
        return (f"{text} nin {listed}", lambda at: not found(at)) if negate else (f"{text} in {listed}", found)
    if kind == "regex":
        pattern = draw(st.sampled_from(["^a", "b", "x$", "é"]))
        return f"{text} ~= '{pattern}'", lambda at: isinstance(get(at), str) and re.search(pattern, get(at)) is not None
    op = draw(comparisons)
    literal_text, literal = draw(literals)
    return f"{text} {op} {literal_text}", lambda at: compare(op, get(at), literal)


@st.composite
def filters(draw):
    key = draw(st.sampled_from(KEYS))
    shape = draw(st.sampled_from(["path", "object-filter", "array-filter", "wildcard", "keys", "slice", "metadata-filter"]))
    if shape == "path":
        steps = ["attributes"] + draw(relative)
        return "$" + path_text(steps), lambda doc: walk(doc, steps) is not MISSING
    if shape == "object-filter":
        text, test = draw(conditions())
        return f"$.attributes[?({text})]", lambda doc: bool(select_filter(doc["attributes"], test))
    if shape == "metadata-filter":
        text, test = draw(conditions())
        return f"$.metadata[?({text})]", lambda doc: bool(select_filter(doc.get("metadata", MISSING), test))
    if shape == "array-filter":
        text, test = draw(conditions())
        return f"$.attributes.{key}[?({text})]", lambda doc: bool(select_filter(doc["attributes"].get(key, MISSING), test))
    if shape == "wildcard":
        return f"$.attributes.{key}[*]", lambda doc: bool(children(doc["attributes"].get(key, MISSING)))
    if shape == "keys":
        names = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=2))
        return "$.attributes[" + ",".join(f"'{n}'" for n in names) + "]", lambda doc: any(n in doc["attributes"] for n in names)
    start, end = draw(st.integers(0, 2)), draw(st.one_of(st.none(), st.integers(0, 3)))
    text = f"$.attributes.{key}[{start}:{'' if end is None else end}]"
    def sliced(doc):  # as upstream: an end past the array selects nothing
        value = doc["attributes"].get(key)
        return isinstance(value, list) and (end is None or end <= len(value)) and bool(value[start:end])

    return text, sliced


# -- the reference semantics ------------------------------------------------------------------------
def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def walk(value, steps):
    for step in steps:
        if isinstance(step, str) and isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(step, int) and isinstance(value, list) and step < len(value):
            value = value[step]
        else:
            return MISSING
    return value


def equal(a, b):
    if a is MISSING or b is MISSING:
        return False
    if is_number(a) and is_number(b):
        return math.isclose(float(a), float(b), rel_tol=0, abs_tol=0)
    return type(a) is type(b) and a == b


def compare(op, a, b):
    less = lambda x, y: is_number(x) and is_number(y) and float(x) < float(y)  # noqa: E731
    return {
        "==": lambda: equal(a, b), "!=": lambda: not equal(a, b),
        "<": lambda: less(a, b), ">": lambda: less(b, a),
        "<=": lambda: less(a, b) or equal(a, b), ">=": lambda: less(b, a) or equal(a, b),
    }[op]()


def size(value, n):
    if value is MISSING:
        return True
    if isinstance(value, str):
        return len(value.encode()) == n
    return isinstance(value, (list, dict)) and len(value) == n


def children(value):
    return list(value.values()) if isinstance(value, dict) else list(value) if isinstance(value, list) else []


def select_filter(value, test):
    """An array's elements that pass; any other value (object, scalar, null) tested itself."""
    if value is MISSING:
        return []
    if isinstance(value, list):
        return [v for v in value if test(v)]
    return [value] if test(value) else []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(docs=documents, rule=filters(), as_include=st.booleans(), split=st.booleans())
def test_compiled_filter_matches_reference(docs, rule, as_include, split):
    check(docs, *rule, as_include, split)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(docs=documents, idiom=idioms(), as_include=st.booleans(), split=st.booleans())
def test_dolma_idiom_matches_reference(docs, idiom, as_include, split):
    """The compiler drops existence tests that the chain's ordering comparison implies; never others."""
    text, test = idiom
    check(docs, f"$.attributes[?({text})]", lambda doc: bool(select_filter(doc["attributes"], test)), as_include, split)


def check(docs, text, reference, as_include, split):
    if split:  # attributes come from an attribute set; the doc keeps only an unrelated key
        table = batch_table([{"id": str(i), **{k: v for k, v in d.items() if k != "attributes"}} for i, d in enumerate(docs)],
                            [[{"id": str(i), "attributes": d["attributes"]} for i, d in enumerate(docs)]])
        rows = run(table, **({"include": [text]} if as_include else {"exclude": [text]}), n_attribute_sets=1)
    else:
        table = batch_table([{"id": str(i), **d} for i, d in enumerate(docs)])
        rows = run(table, **({"include": [text]} if as_include else {"exclude": [text]}))
    expected = [reference(d) == as_include for d in docs]
    assert [r["keep"] for r in rows] == expected, text
