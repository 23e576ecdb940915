"""Time the compiled recipe filters alone: 200,000 synthetic rows, the mixer-validator recipes.

Runs the SQL that `dolma_sql.compile.compile_stream` produces for the upstream
`mixer-validator-{jsonpath,jq}.yaml` filters (9 exclude rules each, plus 11 more
threshold variants to reach 20) over an in-memory `batch` relation with two attribute sets,
and prints rows/s. Upstream has no equivalent stage to time separately (see bench/mix.py for
the end-to-end comparison).

    python bench/compile_filters.py [--rows 200000] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time

import duckdb
import pyarrow as pa
import yaml

from common import SHARED
from dolma_sql.compile import SpanRule, compile_stream

CONFIGS = SHARED / "conformance" / "dolma-669f534" / "tests" / "config"
PREFIX = "cc_tiny_subset_analysis_october__"
KEYS = [
    "cld2_en_paragraph_with_doc_score_v2__doc_en", "ft_lang_id_en_paragraph_with_doc_score_v2__doc_en",
    "char_length_with_paragraphs_v1__document", "jigsaw_nsfw_document_v1____label__nsfw", "gopher_v2__word_count",
    "gopher_v2__symbol_to_word_ratio", "c4_v2__line_bullets", "c4_v2__phrase_repeat",
    "pii_regex_with_counts_fast_v2__EMAIL_ADDRESS",
]


# (passing range, failing range) per key for the validator rules, so about half the rows are kept
RANGES = {
    "doc_en": ((0.8, 1.0), (0.0, 0.8)), "document": ((100, 5000), (0, 100)), "nsfw": ((0.0, 0.5), (0.5, 1.0)),
    "word_count": ((50, 1000), (0, 50)), "ratio": ((0.0, 0.1), (0.1, 1.0)), "bullets": ((0.0, 0.5), (0.5, 1.0)),
    "repeat": ((0.0, 0.3), (0.3, 1.0)), "ADDRESS": ((0.0, 1.0), (0.0, 1.0)),
}


def score(rng: random.Random, key: str) -> float:
    passing, failing = next(ranges for suffix, ranges in RANGES.items() if key.endswith(suffix))
    low, high = passing if rng.random() < 0.93 else failing
    return round(rng.uniform(low, high), 3)


def batch(rows: int) -> pa.Table:
    rng = random.Random(0)
    docs, attr0, attr1 = [], [], []
    for i in range(rows):
        text = " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(rng.randint(50, 150)))
        docs.append(json.dumps({"id": str(i), "text": text, "source": "s", "metadata": {"length": len(text)}}) + "\n")
        attributes = {PREFIX + k: [[0, len(text), score(rng, k)]] for k in KEYS if rng.random() < 0.9}
        attr0.append(json.dumps({"id": str(i), "attributes": attributes}) + "\n")
        bff = [[0, 10, 1]] if rng.random() < 0.1 else []
        attr1.append(json.dumps({"id": str(i), "attributes": {"bff_duplicate_paragraph_spans_new": bff}}) + "\n")
    return pa.table({"row": pa.array(range(rows), pa.int64()), "doc": docs, "attr_0": attr0, "attr_1": attr1})


def recipe(name: str) -> tuple[list[str], str, list[SpanRule]]:
    stream = yaml.safe_load((CONFIGS / name).read_text())["streams"][0]
    excludes = list(stream["filter"]["exclude"])
    variants = [e.replace("0.8", "0.7").replace("0.5", "0.6").replace("< 50", "< 40") for e in excludes]
    excludes += variants[: 20 - len(excludes)]
    spans = [SpanRule(s["span"], s.get("syntax", "jsonpath"), s["replacement"]) for s in stream["span_replacement"]]
    return excludes, stream["filter"].get("syntax", "jsonpath"), spans


def _cpu_seconds() -> float:
    """CPU time of this process (all DuckDB threads): comparable across runs on a busy machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    table = batch(args.rows)
    for name in ("mixer-validator-jsonpath.yaml", "mixer-validator-jq.yaml"):
        excludes, syntax, spans = recipe(name)
        query = compile_stream(include=[], exclude=excludes, syntax=syntax, spans=spans, n_attribute_sets=2,
                               config_path="streams[0]")
        connection = duckdb.connect(config={"threads": args.threads})
        connection.register("batch", table)
        start, cpu = time.perf_counter(), _cpu_seconds()
        result = connection.sql(query.sql).to_arrow_table()
        elapsed, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
        kept = result.column("keep").to_pylist().count(True)
        print(f"{name}: {len(excludes)} excludes + {len(spans)} spans, {args.rows} rows in {elapsed:.2f}s "
              f"({args.rows / elapsed:,.0f} rows/s; {cpu:.2f} CPU-s), kept {kept}, SQL {len(query.sql):,} chars")


if __name__ == "__main__":
    main()
