"""Shared helpers for the compile tests: run a compiled stream query in DuckDB on documents."""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa

from dolma_sql.compile import SpanRule, compile_stream

# The documents of the contract's truth tables (§4.6, §4.7).
DOCS = {
    "d1": {"attributes": {"x": [[0, 5, 0.7]], "flag": True, "n": 5, "s": "abc"}, "metadata": {"length": 100, "lang": "en"}},
    "d2": {"attributes": {"x": [[0, 5, 0.3]], "flag": False, "n": 0, "s": ""}, "metadata": {"length": 600}},
    "d3": {"attributes": {"x": [], "flag": None}, "metadata": {}},
    "d4": {"attributes": {"x": [[0, 5, 1]]}, "metadata": {"length": 600.0}},
    "d5": {"attributes": {}},
    "d6": {"attributes": {"x": [[0, 5, 0.2], [5, 9, 1.0]]}},
    "d7": {"attributes": {"x": None}},
}


def batch_table(docs: list[dict], attribute_sets: list[list[dict]] = ()) -> pa.Table:
    """The mixer's `batch` relation: raw JSON lines for documents and attribute sets."""
    columns = {
        "row": pa.array(range(len(docs)), pa.int64()),
        "doc": pa.array([json.dumps(d) + "\n" for d in docs], pa.string()),
    }
    for i, rows in enumerate(attribute_sets):
        columns[f"attr_{i}"] = pa.array([json.dumps(r) + "\n" for r in rows], pa.string())
    return pa.table(columns)


def run(table: pa.Table, *, include=(), exclude=(), syntax="jsonpath", spans=(), n_attribute_sets=0, rule_columns=False, alignment_check=False):
    query = compile_stream(
        include=list(include), exclude=list(exclude), syntax=syntax, spans=list(spans),
        n_attribute_sets=n_attribute_sets, config_path="streams[0]", rule_columns=rule_columns, alignment_check=alignment_check,
    )
    connection = duckdb.connect()
    connection.register("batch", table)
    relation = connection.sql(query.sql)
    result = [dict(zip(relation.columns, values)) for values in relation.fetchall()]
    assert [r["row"] for r in result] == list(range(table.num_rows))
    return result


def kept(include=(), exclude=(), syntax="jsonpath", split=False) -> list[str]:
    """Names of the truth-table documents kept; with ``split`` the attributes come from attr_0."""
    names = list(DOCS)
    if split:
        docs = [{"id": name, "text": "hello", **{k: v for k, v in d.items() if k != "attributes"}} for name, d in DOCS.items()]
        attrs = [[{"id": name, "attributes": d["attributes"]} for name, d in DOCS.items()]]
        table = batch_table(docs, attrs)
        rows = run(table, include=include, exclude=exclude, syntax=syntax, n_attribute_sets=1)
    else:
        table = batch_table([{"id": name, "text": "hello", **d} for name, d in DOCS.items()])
        rows = run(table, include=include, exclude=exclude, syntax=syntax)
    assert all(r["keep"] in (True, False) for r in rows)
    return [name for name, r in zip(names, rows) if r["keep"]]


__all__ = ["DOCS", "SpanRule", "batch_table", "kept", "run"]
