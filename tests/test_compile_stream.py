"""The assembled stream query: attribute merging, spans, jq replacements, rule columns."""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pytest

from compile_helpers import SpanRule, batch_table, run
from dolma_sql.compile import compile_stream
from dolma_sql.errors import CompileError

DOC = {"id": "1", "text": "0123456789", "attributes": {"a": 1, "z": 2}, "metadata": {"url": "http://u"}}
ATTR_0 = {"id": "1", "attributes": {"a": 10, "b": [[0, 1, 0.5]]}}
ATTR_1 = {"id": "1", "attributes": {"b": 20}}


def parses(sql: str, function: str, column: str) -> int:
    return len(re.findall(rf"{function}\(\s*{column},", sql))


def select(span: str, doc=DOC, attrs=(ATTR_0, ATTR_1), syntax="jsonpath"):
    table = batch_table([doc], [[a] for a in attrs])
    row = run(table, spans=[SpanRule(span, syntax)], n_attribute_sets=len(attrs))[0]
    return None if row["span_0"] is None else json.loads(row["span_0"])


@pytest.mark.parametrize("syntax,prefix", [("jsonpath", "$"), ("jq", "")])
def test_attribute_override_order(syntax, prefix):
    # doc < attr_0 < attr_1 (the later attribute set wins)
    assert select(f"{prefix}.attributes.a", syntax=syntax) == 10
    assert select(f"{prefix}.attributes.b", syntax=syntax) == 20
    assert select(f"{prefix}.attributes.z", syntax=syntax) == 2
    assert select(f"{prefix}.attributes", syntax=syntax) == {"a": 10, "b": 20, "z": 2}


@pytest.mark.parametrize("syntax,prefix", [("jsonpath", "$"), ("jq", "")])
def test_a_deeper_path_comes_from_the_set_the_key_comes_from(syntax, prefix):
    """attr_1's ``b`` (20) hides attr_0's ``b``, so ``b[0][2]`` is not attr_0's 0.5."""
    assert select(f"{prefix}.attributes.b[0][2]", attrs=(ATTR_0,), syntax=syntax) == 0.5
    deeper = (ATTR_0, {"id": "1", "attributes": {"b": [[5, 6, 0.25]]}})
    assert select(f"{prefix}.attributes.b[0][2]", attrs=deeper, syntax=syntax) == 0.25
    assert select(f"{prefix}.attributes.a", attrs=deeper, syntax=syntax) == 10  # a key only the older set holds
    if syntax == "jsonpath":
        assert select("$.attributes.b[0][2]") is None
        table = batch_table([DOC], [[a] for a in (ATTR_0, ATTR_1)])
        assert run(table, include=["$.attributes[?(@.b[0][2] >= 0.5)]"], n_attribute_sets=2)[0]["keep"] is False
    else:
        with pytest.raises(Exception, match="failed on the document"):  # jq cannot index the number 20
            select(".attributes.b[0][2]", syntax="jq")


def test_null_overrides_and_counts_as_present():
    attrs = (ATTR_0, {"id": "1", "attributes": {"a": None}})
    assert select("$.attributes.a", attrs=attrs) is None  # JSON null selected
    table = batch_table([DOC], [[a] for a in attrs])
    rows = run(table, include=["$.attributes[?(@.a)]"], exclude=["$.attributes[?(@.a == 10)]"], n_attribute_sets=2)
    assert rows[0]["keep"] is True
    rows = run(table, include=[".attributes.a == null"], syntax="jq", n_attribute_sets=2)
    assert rows[0]["keep"] is True


def test_no_attribute_sets_uses_the_document_alone():
    assert select("$.attributes.a", attrs=()) == 1
    assert select("$.attributes.b", attrs=()) is None
    doc = {"id": "1", "text": "x", "attributes": [[0, 1, 0.5]]}
    assert select("$.attributes[0][2]", doc=doc, attrs=()) == 0.5


def test_non_object_doc_attributes_are_replaced_by_the_attribute_sets():
    doc = {"id": "1", "text": "x", "attributes": [1, 2]}
    assert select("$.attributes", doc=doc, attrs=(ATTR_0,)) == {"a": 10, "b": [[0, 1, 0.5]]}
    assert select("$.attributes[0]", doc=doc, attrs=(ATTR_0,)) is None


def test_span_selection_shapes():
    doc = {"id": "1", "text": "x", "attributes": {"p": [[0, 1, 0.9]], "q": [[1, 2, 0.1]]}}
    assert select("$.attributes.p", doc=doc, attrs=()) == [[0, 1, 0.9]]  # one match: the value
    assert select("$.attributes.*", doc=doc, attrs=()) == [[[0, 1, 0.9]], [[1, 2, 0.1]]]  # several: an array
    assert select("$.attributes.missing", doc=doc, attrs=()) is None
    table = batch_table([doc], [])
    row = run(table, spans=[SpanRule("$.attributes.missing")])[0]
    assert row["span_0"] is None  # SQL NULL when nothing matched
    assert select(".attributes?.p?", doc=doc, attrs=(), syntax="jq") == [[0, 1, 0.9]]
    assert select(".attributes.p[], .attributes.q[]", doc=doc, attrs=(), syntax="jq") == [[0, 1, 0.9], [1, 2, 0.1]]


def test_jq_span_selector_of_the_email_config():
    doc = {"id": "1", "text": "x"}
    attrs = ({"id": "1", "attributes": {"pii": {"email": [[0, 1, 0.8]]}}},)
    assert select(".attributes?.pii?.email?", doc=doc, attrs=attrs, syntax="jq") == [[0, 1, 0.8]]
    attrs = ({"id": "1", "attributes": {"pii": 5}},)  # `.email` on a number: an error, `?` gives no output
    table = batch_table([doc], [[a] for a in attrs])
    assert run(table, spans=[SpanRule(".attributes?.pii?.email?", "jq")], n_attribute_sets=1)[0]["span_0"] is None


def test_spans_only_for_kept_rows_and_jq_replacement():
    docs = [DOC, {**DOC, "id": "2", "metadata": {"url": "http://v", "drop": True}}]
    table = batch_table(docs)
    spans = [SpanRule("$.attributes.a", replacement="$.metadata.url"), SpanRule("$.attributes.z", replacement="[{}]")]
    rows = run(table, exclude=["$.metadata.drop"], spans=spans)
    assert rows[0]["keep"] is True and rows[1]["keep"] is False
    assert rows[0]["span_0"] == "1" and rows[0]["replacement_0"] == "http://u"
    assert rows[1]["span_0"] is None and rows[1]["replacement_0"] is None
    assert "replacement_1" not in rows[0]  # literal replacements are applied by the mixer


def test_rule_columns():
    table = batch_table([{"id": "1", "n": 1}, {"id": "2", "n": 2}, {"id": "3"}])
    rows = run(table, include=["$.n", "$[?(@.n == 2)]"], exclude=["$[?(@.n > 1)]"], rule_columns=True)
    assert [(r["include_0"], r["include_1"], r["exclude_0"], r["keep"]) for r in rows] == [
        (True, False, False, True),
        (True, True, True, False),
        (False, False, False, False),
    ]


def test_no_rules_keeps_everything():
    rows = run(batch_table([{"id": "1"}]), spans=[SpanRule("$.text")])
    assert rows[0]["keep"] is True


def test_attribute_keys_and_query_shape():
    query = compile_stream(
        include=["$.attributes[?(@.k1 && @.k1[0][2] > 0.5)]"], exclude=[".attributes.k2 | length > 0"][:0],
        syntax="jsonpath", spans=[SpanRule(".attributes?.k3?", "jq")], n_attribute_sets=2, config_path="streams[0]",
    )
    assert query.attribute_keys == {"k1", "k3"}
    assert query.sql == query.expression.sql(dialect="duckdb", pretty=True)
    assert parses(query.sql, "JSON_EXTRACT", "attr_0") == 1  # each raw column parsed once


def test_each_source_parsed_once_regardless_of_rule_count():
    rules = [f"$.attributes[?(@.k{i} && @.k{i}[0][2] > 0.5)]" for i in range(20)]
    query = compile_stream(include=[], exclude=rules, syntax="jsonpath", spans=[], n_attribute_sets=2)
    for column in ("doc", "attr_0", "attr_1"):
        assert parses(query.sql, "JSON_EXTRACT", column) == 1
        assert parses(query.sql, "JSON_TYPE", column) <= 1


def test_unknown_syntax_names_the_config_path():
    with pytest.raises(CompileError) as caught:
        compile_stream(include=["$.a"], exclude=[], syntax="xpath", spans=[], n_attribute_sets=0, config_path="streams[1]")
    assert caught.value.path == "streams[1].filter.syntax"
    with pytest.raises(CompileError) as caught:
        compile_stream(include=[], exclude=[], syntax="jq", spans=[SpanRule("$.a", "xpath")], n_attribute_sets=0,
                       config_path="streams[0]")
    assert caught.value.path == "streams[0].span_replacement[0].syntax"


def test_span_error_path():
    with pytest.raises(CompileError) as caught:
        compile_stream(include=[], exclude=[], syntax="jsonpath", spans=[SpanRule("$.a"), SpanRule("$..b")],
                       n_attribute_sets=0, config_path="streams[0]")
    assert caught.value.path == "streams[0].span_replacement[1].span"
    assert "\n    $..b\n     ^" in str(caught.value)


@pytest.mark.parametrize("key", ['we ird.key', 'quo"te', "back\\slash", "brack]et", "it's", "ünï"])
def test_keys_are_quoted_safely(key):
    doc = {"id": "1", "text": "x", "attributes": {key: [[0, 1, 0.9]]}}
    quoted = key.replace("\\", "\\\\").replace("'", "\\'")
    assert select(f"$.attributes['{quoted}']", doc=doc, attrs=()) == [[0, 1, 0.9]]
    attrs = ({"id": "1", "attributes": {key: [[0, 1, 0.5]]}},)
    assert select(f".attributes[{json.dumps(key)}][0][2]", doc=doc, attrs=attrs, syntax="jq") == 0.5


def _raw_rows(doc_lines: list[str], attribute_lines: list[str], **rules) -> list[dict]:
    """The stream query, with its alignment check, on raw lines written exactly as given (key order, escapes, spacing)."""
    table = pa.table({"row": pa.array(range(len(doc_lines)), pa.int64()), "doc": doc_lines, "attr_0": attribute_lines})
    return run(table, n_attribute_sets=1, alignment_check=True, **rules)


# The same document written several ways: most lines skip the document parse (no "attributes" text,
# the id first), the others must be parsed, and all of them must give the same answers.
_LAYOUTS = {
    "attributes of its own": ('{"id":"1","text":"x","attributes":{"z":[[0,1,0.75]]}}', 0.75),
    "escaped key": ('{"id":"1","text":"x","attr\\u0069butes":{"z":[[0,1,0.75]]}}', 0.75),
    "key with spaces": ('{"id": "1", "text": "x", "attributes": {"z": [[0, 1, 0.75]]}}', 0.75),
    "none": ('{"id":"1","text":"x"}', None),
    "none, id last": ('{"text":"x","id":"1"}', None),
    "the word in the text": ('{"id":"1","text":"\\"attributes\\" of x"}', None),
}


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_documents_whatever_their_layout_merge_their_own_attributes(layout):
    line, z = _LAYOUTS[layout]
    rows = _raw_rows([line], ['{"id":"1","attributes":{"a":[[0,1,0.5]]}}'], include=["$.attributes[?(@.z[0][2] > 0.5)]"],
                     spans=[SpanRule("$.attributes.z")])
    assert rows[0]["keep"] is (z is not None) and rows[0]["problem"] is False
    assert (rows[0]["span_0"] and json.loads(rows[0]["span_0"])) == ([[0, 1, z]] if z else None)


@pytest.mark.parametrize(
    "doc_id,attribute_id,aligned",
    [('"1"', '"1"', True), ('"1"', '"2"', False), ("1", '"1"', False), ('"a\\"b"', '"a\\"b"', True), ('"é"', '"\\u00e9"', True), ('"1"', "1", False)],
)
@pytest.mark.parametrize("id_first", [True, False])
def test_ids_are_compared_whatever_the_document_layout(doc_id, attribute_id, aligned, id_first):
    doc = f'{{"id":{doc_id},"text":"x"}}' if id_first else f'{{"text":"x","id":{doc_id}}}'
    rows = _raw_rows([doc], [f'{{"id":{attribute_id},"attributes":{{"a":[[0,1,0.5]]}}}}'], exclude=["$.attributes[?(@.a[0][2] > 0.9)]"])
    assert rows[0]["problem"] is (not aligned)
