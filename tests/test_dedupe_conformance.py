"""Upstream's dedupe configs, run unchanged from inside a copy of the conformance folder.

Two documented differences from ``tests/data/expected`` (both checked precisely, nothing else may differ):

- Offsets are code points throughout. Upstream tests "is this the last paragraph?" against the text's
  *byte* length, so on non-ASCII text its last span runs one past the end of the text
  (``dedupe-paragraphs`` line 2: ``[5788, 5836]`` for a 5,835-character text); ours ends at 5835.
- ``dedupe-paragraph-ngrams``: the upstream expected file predates the released wheel. dolma 1.2.1
  (the oracle) reports two more 0.5 spans (lines 3 and 10): paragraphs half of whose sampled 6-grams
  occur in an earlier paragraph of the same document. They are real repeats, not Bloom false
  positives (the wheel reports them with any filter size), so we report them too;
  ``test_ngram_conformance_equals_oracle`` checks the whole file against the oracle.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_oracle

CASES = {
    "dedupe-by-url.json": "dedupe_by_url",
    "dedupe-paragraphs.json": "dedupe_paragraphs",
    "dedupe-paragraph-ngrams.json": "dedupe_paragraph_ngrams",
}
UPSTREAM_EXTRA_NGRAM_SPANS = {2: [[2174, 2246, 0.5]], 9: [[1768, 1833, 0.5]]}


def dolma_sql(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "dolma_sql", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def read_rows(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def texts(conformance: Path) -> list[str]:
    return [row["text"] for row in read_rows(conformance / "tests/data/provided/deduper/documents/000.json.gz")]


def with_code_point_ends(expected: list[dict], documents: list[str]) -> list[dict]:
    """Upstream's rows with spans that run past the text clamped to its code-point length (the byte-length defect)."""
    fixed = []
    for row, text in zip(expected, documents):
        attributes = {
            name: [[start, min(end, len(text)), score] for start, end, score in spans] for name, spans in row["attributes"].items()
        }
        fixed.append({**row, "attributes": attributes})
    return fixed


@pytest.mark.parametrize("config", sorted(CASES))
def test_upstream_config_matches_expected(conformance: Path, config: str) -> None:
    result = dolma_sql(conformance, "-c", f"tests/config/{config}", "dedupe")
    assert result.returncode == 0, result.stderr
    got = read_rows(conformance / f"tests/data/provided/deduper/attributes/{CASES[config]}/000.json.gz")
    expected = read_rows(conformance / f"tests/data/expected/{config.replace('.json', '.json.gz')}")
    documents = texts(conformance)
    assert len(got) == len(expected) == 10
    expected = with_code_point_ends(expected, documents)
    if config == "dedupe-paragraph-ngrams.json":
        for line, spans in UPSTREAM_EXTRA_NGRAM_SPANS.items():
            expected[line]["attributes"]["bff_duplicate_paragraph_spans"] = sorted(
                expected[line]["attributes"]["bff_duplicate_paragraph_spans"] + spans
            )
    for line, (ours, theirs) in enumerate(zip(got, expected)):
        assert ours == theirs, f"line {line + 1}"
    # the clamp above changed exactly one span, and only because upstream overran the text
    raw = read_rows(conformance / f"tests/data/expected/{config.replace('.json', '.json.gz')}")
    overruns = [(i, s) for i, (row, text) in enumerate(zip(raw, documents)) for spans in row["attributes"].values() for s in spans if s[1] > len(text)]
    assert overruns == ([] if config == "dedupe-by-url.json" else [(1, [5788, 5836, 1])])


@pytest.mark.oracle
def test_ngram_conformance_equals_oracle(conformance: Path, oracle: Path, tmp_path: Path) -> None:
    run_oracle(oracle, ["-c", "tests/config/dedupe-paragraph-ngrams.json", "dedupe"], cwd=conformance)
    target = conformance / "tests/data/provided/deduper/attributes/dedupe_paragraph_ngrams/000.json.gz"
    upstream = read_rows(target)
    target.unlink()
    (conformance / "tests/work/para_bloom_filter.bin").unlink()
    result = dolma_sql(conformance, "-c", "tests/config/dedupe-paragraph-ngrams.json", "dedupe")
    assert result.returncode == 0, result.stderr
    ours = read_rows(target)
    assert ours == with_code_point_ends(upstream, texts(conformance))
    for line, spans in UPSTREAM_EXTRA_NGRAM_SPANS.items():
        assert all(span in upstream[line]["attributes"]["bff_duplicate_paragraph_spans"] for span in spans)


def test_filepath_good_runs(conformance: Path) -> None:
    result = dolma_sql(conformance, "-c", "tests/config/filepath-good.json", "dedupe")
    assert result.returncode == 0, result.stderr
    rows = read_rows(conformance / "tests/data/provided/deduper/attributes/dedupe_paragraph_ngrams/000.json.gz")
    assert len(rows) == 10


def test_filepath_bad_is_refused(conformance: Path) -> None:
    result = dolma_sql(conformance, "-c", "tests/config/filepath-bad.json", "dedupe")
    assert result.returncode == 1
    assert "does not contain the expected document directory '/documents/'" in result.stderr
    assert "pathnotd0cumentz/000.json.gz" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (conformance / "tests/data/provided/deduper/attributes").exists()


def test_exact_mode_equals_bloom_mode_on_conformance(conformance: Path) -> None:
    for config, name in CASES.items():
        bloom = dolma_sql(conformance, "-c", f"tests/config/{config}", "dedupe", "--bloom_filter.file", f"tests/work/{name}.bin")
        assert bloom.returncode == 0, bloom.stderr
        exact = dolma_sql(conformance, "-c", f"tests/config/{config}", "dedupe", "--exact", "--dedupe.name", f"exact_{name}")
        assert exact.returncode == 0, exact.stderr
        base = conformance / "tests/data/provided/deduper/attributes"
        assert read_rows(base / name / "000.json.gz") == read_rows(base / f"exact_{name}" / "000.json.gz")
        assert (base / f"exact_{name}" / "lineage.parquet").exists()
