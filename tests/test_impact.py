"""``mix --dry-run``: the impact report agrees exactly with what a real mix writes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mixhelpers import read_outputs
from dolma_sql.config import load_config
from dolma_sql.impact import impact_report
from dolma_sql.recipe import MixerConfig, validate


def load(path) -> MixerConfig:
    return validate(load_config(MixerConfig, config_file=str(path), flags=[]))


@pytest.mark.parametrize("config", ["mixer.json", "email-spans.json", "filter-by-spans.json", "paragraph-spans.json"])
def test_dry_run_totals_equal_a_real_mix(conformance, config, monkeypatch):
    monkeypatch.chdir(conformance)
    recipe = load(f"tests/config/{config}")
    report = impact_report(recipe)
    assert not (conformance / "tests/work").exists(), "a dry run writes nothing"
    subprocess.run([sys.executable, "-P", "-m", "dolma_sql", "-c", f"tests/config/{config}", "mix"], check=True, capture_output=True)
    written = read_outputs(str(conformance / recipe.streams[0].output.path))
    stream = report["streams"][0]
    assert stream["kept"]["documents"] == len(written)
    assert stream["kept"]["text_bytes"] == sum(len(doc["text"].encode()) for doc in written)


def test_rule_accounting_adds_up(conformance, monkeypatch):
    monkeypatch.chdir(conformance)
    stream = impact_report(load("tests/config/mixer.json"))["streams"][0]
    removed_by_filters = sum(rule["marginal"]["documents"] for rule in stream["filters"] if rule["rule"].startswith("exclude")) + next(
        rule["marginal"]["documents"] for rule in stream["filters"] if rule["rule"] == "include"
    )
    assert stream["in"]["documents"] == 10
    assert stream["in"]["documents"] - removed_by_filters == stream["after_filters"]["documents"] == stream["kept"]["documents"] == 6
    for rule in stream["filters"]:
        assert rule["marginal"]["documents"] <= rule["alone"]["documents"]


def test_cli_writes_json_report(conformance):
    result = subprocess.run(
        [sys.executable, "-P", "-m", "dolma_sql", "-c", "tests/config/mixer.json", "mix", "--dry-run", "--report", "report.json"],
        cwd=conformance,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "kept" in result.stdout
    report = json.loads((conformance / "report.json").read_text())
    assert report["streams"][0]["kept"]["documents"] == 6
