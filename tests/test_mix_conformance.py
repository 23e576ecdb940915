"""Golden tests: upstream's own mixer configs, run from inside a copy of the conformance folder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mixhelpers import read_jsonl, read_outputs

CASES = {
    "mixer.json": ("tests/work/output/mixer", "mixer.json.gz"),
    "email-spans.json": ("tests/work/output/email-spans", "email-spans.json.gz"),
    "email-spans-jq.yaml": ("tests/work/output/email-spans-jq", "email-spans-jq.json.gz"),
    "filter-by-spans.json": ("tests/work/output/filter-by-spans", "filter-by-spans.json.gz"),
    "paragraph-spans.json": ("tests/work/output/paragraph-spans", "remove-paragraphs.json.gz"),
}


def dolma_sql(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "dolma_sql", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("config", sorted(CASES))
def test_mix_matches_upstream_expected(conformance, config):
    output, expected = CASES[config]
    result = dolma_sql("-c", f"tests/config/{config}", "mix", cwd=conformance)
    assert result.returncode == 0, result.stderr
    produced = read_outputs(str(conformance / output))
    wanted = read_jsonl(str(conformance / "tests/data/expected" / expected))
    assert len(produced) == len(wanted)
    for ours, theirs in zip(produced, wanted):
        assert ours == theirs


@pytest.mark.parametrize("config", ["c4-cleaned.json", "mixer-validator-jsonpath.yaml", "mixer-validator-jq.yaml"])
def test_explain_prints_sql_for_s3_configs_without_touching_s3(conformance, config):
    result = dolma_sql("-c", f"tests/config/{config}", "mix", "--explain", cwd=conformance)
    assert result.returncode == 0, result.stderr
    assert "SELECT" in result.stdout and "FROM batch" in result.stdout.replace("\n", " ")
    assert not (conformance / "tests/work").exists()


def test_rerun_skips_finished_shards_and_keeps_output(conformance):
    first = dolma_sql("-c", "tests/config/mixer.json", "mix", cwd=conformance)
    assert first.returncode == 0, first.stderr
    output = conformance / "tests/work/output/mixer"
    before = {p.name: p.read_bytes() for p in output.iterdir() if p.is_file()}
    second = dolma_sql("-c", "tests/config/mixer.json", "mix", cwd=conformance)
    assert second.returncode == 0, second.stderr
    assert "already done" in second.stderr
    assert {p.name: p.read_bytes() for p in output.iterdir() if p.is_file()} == before
    assert not [p for p in os.listdir(output) if p.endswith(".tmp")]
