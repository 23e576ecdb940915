"""Differential tests: random documents, attributes, filters and span replacements, mixed by
upstream dolma 1.2.1 and by dolma-sql; every stream's output must be equal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import run_oracle
from mixhelpers import read_outputs

KEYS = ["q", "dup", "pii"]
ALPHABET = st.sampled_from(list("abc xyz\n.,") + ["é", "😊", "中", "\u0301", "ß", "\t"])


@st.composite
def documents(draw, count: int) -> list[dict]:
    docs = []
    standard = draw(st.booleans())  # every document with exactly dolma's standard fields: the mixer's fast path
    for index in range(count):
        text = draw(st.text(alphabet=ALPHABET, min_size=1, max_size=60))
        attributes = {}
        for key in KEYS:
            if draw(st.booleans()):
                spans = []
                for _ in range(draw(st.integers(0, 3))):
                    start = draw(st.integers(0, len(text) - 1))
                    end = draw(st.integers(start + 1, len(text)))
                    spans.append([start, end, draw(st.sampled_from([0.05, 0.25, 0.5, 0.75, 0.95, 1.0]))])
                attributes[key] = spans
        doc = {"id": f"d{index}", "text": text, "source": "gen"}
        if standard or draw(st.booleans()):
            doc["metadata"] = {"length": len(text), "lang": draw(st.sampled_from(["en", "fr"]))}
        if standard:
            doc.update(added="2024-01-02T03:04:05Z", created=draw(st.sampled_from(["2019-05-06", "2020-01-01T00:00:00.000Z"])))
        docs.append((doc, attributes))
    return docs


THRESHOLDS = st.sampled_from([0.1, 0.3, 0.5, 0.8])
JSONPATH_RULES = st.one_of(
    st.builds(lambda k, t: f"$.attributes[?(@.{k} && @.{k}[0] && @.{k}[0][2] > {t})]", st.sampled_from(KEYS), THRESHOLDS),
    st.builds(lambda k, t: f"$.attributes[?(@.{k}[0][2] < {t})]", st.sampled_from(KEYS), THRESHOLDS),
    st.builds(lambda k, t: f"$.attributes.{k}[?(@[2] >= {t})]", st.sampled_from(KEYS), THRESHOLDS),
    st.builds(lambda k: f"$.attributes.{k}", st.sampled_from(KEYS)),
    st.builds(lambda k: f"$.attributes.{k}[1]", st.sampled_from(KEYS)),
    st.builds(lambda n: f"$.metadata[?(@.length < {n})]", st.integers(5, 50)),
    st.just("$.metadata[?(@.lang == 'en')]"),
    st.builds(lambda a, b: f"$.attributes[?(@.{a} || !@.{b})]", st.sampled_from(KEYS), st.sampled_from(KEYS)),
)
JQ_RULES = st.one_of(
    st.builds(
        lambda k, t: f'(.attributes.{k} | if type == "array" and length > 0 then .[0][2] > {t} else false end)',
        st.sampled_from(KEYS),
        THRESHOLDS,
    ),
    st.builds(lambda k: f".attributes.{k}", st.sampled_from(KEYS)),
    st.builds(lambda k: f'.attributes | has("{k}")', st.sampled_from(KEYS)),
    st.builds(lambda n: f"(.metadata // {{}}) | (.length // 0) < {n}", st.integers(5, 50)),
    st.builds(lambda k, t: f"(.attributes.{k} // []) | map(.[2]) | add > {t}", st.sampled_from(KEYS), THRESHOLDS),
)
SPANS = st.fixed_dictionaries(
    {"span": st.sampled_from([f"$.attributes.{k}" for k in KEYS]), "replacement": st.sampled_from(["", "[X]", "<{}>", "{}{}"])},
    optional={"min_score": THRESHOLDS, "max_score": st.sampled_from([0.9, 1.5])},
)


@st.composite
def streams(draw, syntax: str) -> dict:
    rules = JSONPATH_RULES if syntax == "jsonpath" else JQ_RULES
    stream: dict = {}
    include = draw(st.lists(rules, max_size=2))
    exclude = draw(st.lists(rules, max_size=3))
    if include or exclude:
        stream["filter"] = {"include": include, "exclude": exclude, "syntax": syntax}
    spans = draw(st.lists(SPANS, max_size=3))
    for span in spans:
        span.setdefault("min_score", 0.0)
        if syntax == "jq":
            span["syntax"] = "jq"
            span["span"] = "." + span["span"][2:]
    if spans or not stream:
        stream["span_replacement"] = spans or [{"span": "$.attributes.q", "min_score": 0.5, "replacement": ""}]
    return stream


def write_corpus(root: Path, docs: list[tuple[dict, dict]]) -> None:
    half = len(docs) // 2
    for part, chunk in enumerate([docs[:half], docs[half:]]):
        for folder, records in (
            ("documents", [doc for doc, _ in chunk]),
            ("attributes/gen", [{"id": doc["id"], "attributes": attrs} for doc, attrs in chunk]),
        ):
            path = root / folder / f"{part}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


# Each example runs both mixers on 12 streams; shrinking would rerun them hundreds of times,
# so failures report the offending stream's rules instead.
@settings(max_examples=3, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate], suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(docs=documents(16), jsonpath_streams=st.lists(streams("jsonpath"), min_size=6, max_size=6), jq_streams=st.lists(streams("jq"), min_size=6, max_size=6))
def test_random_recipes_match_upstream(oracle, tmp_path_factory, docs, jsonpath_streams, jq_streams):
    root = tmp_path_factory.mktemp("diff")
    write_corpus(root, docs)
    config = {"streams": [], "processes": 1}
    for index, stream in enumerate(jsonpath_streams + jq_streams):
        stream.update(
            name=f"s{index}",
            documents=[str(root / "documents" / "*.jsonl")],
            attributes=["gen"],
            output={"path": "OUT/s%d" % index, "max_size_in_bytes": 100000},
        )
        config["streams"].append(stream)
    for system in ("upstream", "ours"):
        text = yaml.safe_dump(config, allow_unicode=True).replace("OUT/", str(root / system) + "/")
        (root / f"{system}.yaml").write_text(text)
    run_oracle(oracle, ["-c", str(root / "upstream.yaml"), "mix"], cwd=root)
    result = subprocess.run([sys.executable, "-P", "-m", "dolma_sql", "-c", str(root / "ours.yaml"), "mix"], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for index, stream in enumerate(config["streams"]):
        theirs = read_outputs(str(root / "upstream" / f"s{index}"))
        ours = read_outputs(str(root / "ours" / f"s{index}"))
        assert ours == theirs, f"stream {index}: {json.dumps({k: v for k, v in stream.items() if k in ('filter', 'span_replacement')})}"
