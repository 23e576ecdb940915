"""SQL snapshots of the conformance configs' filters and span selectors.

Regenerate after an intended change with ``UPDATE_SNAPSHOTS=1 pytest tests/test_compile_snapshots.py``
and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
import sqlglot
import yaml

from conftest import CONFORMANCE
from dolma_sql.compile import SpanRule, compile_stream

CONFIGS = CONFORMANCE / "tests" / "config"
SNAPSHOTS = Path(__file__).parent / "snapshots"


def streams():
    for config in sorted(CONFIGS.glob("*")):
        if config.suffix not in (".json", ".yaml", ".yml"):
            continue
        for i, stream in enumerate(yaml.safe_load(config.read_text()).get("streams") or []):
            if stream.get("filter") or stream.get("span_replacement"):
                yield pytest.param(config, i, stream, id=f"{config.name}-streams[{i}]")


def compile_config_stream(i: int, stream: dict):
    filter_ = stream.get("filter") or {}
    spans = [
        SpanRule(s["span"], s.get("syntax", "jsonpath"), s.get("replacement", ""))
        for s in stream.get("span_replacement") or []
    ]
    return compile_stream(
        include=filter_.get("include", []), exclude=filter_.get("exclude", []),
        syntax=filter_.get("syntax", "jsonpath"), spans=spans,
        n_attribute_sets=len(stream.get("attributes", [])), config_path=f"streams[{i}]",
    )


@pytest.mark.parametrize("config,i,stream", list(streams()))
def test_snapshot(config, i, stream):
    query = compile_config_stream(i, stream)
    snapshot = SNAPSHOTS / f"{config.stem}.streams{i}.sql"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        snapshot.write_text(query.sql + "\n")
    assert snapshot.exists(), f"missing snapshot {snapshot.name}; run with UPDATE_SNAPSHOTS=1"
    assert query.sql + "\n" == snapshot.read_text()
    # the snapshot is valid DuckDB that binds against the mixer's relation, and sqlglot reads it back
    n = len(stream.get("attributes", []))
    schema = pa.schema([("row", pa.int64()), ("doc", pa.string())] + [(f"attr_{k}", pa.string()) for k in range(n)])
    connection = duckdb.connect()
    connection.register("batch", schema.empty_table())
    assert connection.sql(query.sql).fetchall() == []
    assert isinstance(sqlglot.parse_one(query.sql, read="duckdb"), sqlglot.exp.Select)


def test_every_filtering_config_has_a_snapshot():
    names = {f"{p.values[0].stem}.streams{p.values[1]}.sql" for p in streams()}
    assert names == {p.name for p in SNAPSHOTS.glob("*.sql")}
    assert {"mixer-validator-jsonpath.streams0.sql", "mixer-validator-jq.streams0.sql"} <= names
