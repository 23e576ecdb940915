"""Differential test: compiled JSONPath filters against upstream dolma 1.2.1 on random documents.

One upstream `mix` run holds one stream per random filter, over the same random documents (with
attributes in the documents, and again in an attribute file). Numbers are chosen so the
documented deviation (upstream never equates an int and a float) cannot show: document and
literal numbers are integers or non-integral floats.
"""

from __future__ import annotations

import gzip
import json
import random

import pytest

from compile_helpers import batch_table, run
from conftest import run_oracle

pytestmark = pytest.mark.oracle

KEYS = ["a", "b", "c"]
NUMBERS = [-2, 0, 1, 3, 0.5, 2.5, -1.5]
SCALARS = [None, True, False, "", "x", "ab", "é", *NUMBERS]


def random_value(rng: random.Random):
    kind = rng.randrange(4)
    if kind == 0:
        return rng.choice(SCALARS)
    if kind == 1:
        return [[rng.randrange(5), rng.randrange(9), rng.choice(NUMBERS)] for _ in range(rng.randrange(3))]
    if kind == 2:
        return {k: rng.choice(SCALARS) for k in rng.sample(KEYS, rng.randrange(3))}
    return [rng.choice(SCALARS) for _ in range(rng.randrange(3))]


def random_doc(rng: random.Random, i: int) -> dict:
    doc = {"id": str(i), "text": "t", "attributes": {k: random_value(rng) for k in rng.sample(KEYS, rng.randrange(4))}}
    if rng.random() < 0.7:
        doc["metadata"] = {k: rng.choice(SCALARS) for k in rng.sample(KEYS, rng.randrange(3))}
    return doc


def literal(rng: random.Random, choices=SCALARS) -> str:
    value = rng.choice(choices)
    return f"'{value}'" if isinstance(value, str) else json.dumps(value)


def relative(rng: random.Random) -> str:
    return "".join(f".{rng.choice(KEYS)}" if rng.random() < 0.6 else f"[{rng.randrange(3)}]" for _ in range(rng.randint(1, 3)))


def condition(rng: random.Random, depth: int = 0) -> str:
    kind = rng.choice(["exists", "not", "compare", "compare", "size", "in", "regex"] + (["and", "or"] if depth < 2 else []))
    if kind in ("and", "or"):
        return f"({condition(rng, depth + 1)} {'&&' if kind == 'and' else '||'} {condition(rng, depth + 1)})"
    path = "@" + relative(rng)
    if kind == "exists":
        return path
    if kind == "not":
        return "!" + path
    if kind == "size":
        return f"{path} size {rng.randrange(3)}"
    if kind == "in":
        items = rng.choice([NUMBERS, ["", "x", "ab"]])  # upstream: 2+ numbers, or 2+ strings
        listed = ", ".join(literal(rng, items) for _ in range(rng.randint(2, 3)))
        return f"{path} {rng.choice(['in', 'nin'])} [{listed}]"
    if kind == "regex":
        return f"{path} ~= '{rng.choice(['^a', 'b', 'x$', 'é'])}'"
    return f"{path} {rng.choice(['==', '!=', '<', '<=', '>', '>='])} {literal(rng)}"


def random_filter(rng: random.Random) -> str:
    key = rng.choice(KEYS)
    return rng.choice([
        lambda: "$.attributes" + relative(rng),
        lambda: f"$.attributes[?({condition(rng)})]",
        lambda: f"$.metadata[?({condition(rng)})]",
        lambda: f"$.attributes.{key}[?({condition(rng)})]",
        lambda: f"$.attributes.{key}[*]",
        lambda: f"$.attributes.*",
        lambda: "$.attributes[" + ",".join(f"'{k}'" for k in rng.sample(KEYS, 2)) + "]",
        lambda: f"$.attributes.{key}[{rng.randrange(2)}:{rng.choice(['', '1', '3'])}]",
    ])()


def test_jsonpath_filters_agree_with_upstream(oracle, tmp_path):
    rng = random.Random(669)
    docs = [random_doc(rng, i) for i in range(150)]
    rules = [(random_filter(rng), rng.random() < 0.5) for _ in range(40)]  # (expression, as include?)

    (tmp_path / "documents").mkdir()
    (tmp_path / "attributes" / "a").mkdir(parents=True)
    with gzip.open(tmp_path / "documents" / "d.json.gz", "wt") as out:
        out.writelines(json.dumps(d) + "\n" for d in docs)
    (tmp_path / "split" / "documents").mkdir(parents=True)
    (tmp_path / "split" / "attributes" / "a").mkdir(parents=True)
    with gzip.open(tmp_path / "split" / "documents" / "d.json.gz", "wt") as out:
        out.writelines(json.dumps({k: v for k, v in d.items() if k != "attributes"}) + "\n" for d in docs)
    with gzip.open(tmp_path / "split" / "attributes" / "a" / "d.json.gz", "wt") as out:
        out.writelines(json.dumps({"id": d["id"], "attributes": d["attributes"]}) + "\n" for d in docs)

    streams = []
    for i, (expression, as_include) in enumerate(rules):
        for split in (False, True):
            root = tmp_path / ("split" if split else "")
            streams.append({
                "name": f"s{i}{'split' if split else ''}",
                "documents": [str(root / "documents" / "d.json.gz")],
                "attributes": ["a"] if split else [],
                "output": {"path": str(tmp_path / "out"), "max_size_in_bytes": 10**9},
                "filter": {"include": [expression] if as_include else [], "exclude": [] if as_include else [expression]},
            })
    (tmp_path / "mix.json").write_text(json.dumps({"streams": streams, "processes": 2}))
    run_oracle(oracle, ["-c", str(tmp_path / "mix.json"), "mix"], cwd=tmp_path)

    whole = batch_table(docs)
    parts = batch_table([{k: v for k, v in d.items() if k != "attributes"} for d in docs],
                        [[{"id": d["id"], "attributes": d["attributes"]} for d in docs]])
    mismatches = []
    for i, (expression, as_include) in enumerate(rules):
        side = {"include": [expression]} if as_include else {"exclude": [expression]}
        for split, table in ((False, whole), (True, parts)):
            with gzip.open(tmp_path / "out" / f"s{i}{'split' if split else ''}-0000.json.gz", "rt") as lines:
                upstream = [json.loads(line)["id"] for line in lines]
            ours = [r["row"] for r in run(table, **side, n_attribute_sets=int(split)) if r["keep"]]
            if upstream != [str(row) for row in ours]:
                mismatches.append((expression, as_include, split, upstream, ours))
    assert not mismatches
