"""``mix --dry-run``: the impact report agrees exactly with what a real mix writes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mixhelpers import read_outputs
from dolma_sql import mixer
from dolma_sql.config import load_config
from dolma_sql.config.mix import MixerConfig
from dolma_sql.runtime import SerialExecutor


def load(path) -> MixerConfig:
    return load_config(MixerConfig, config_file=str(path), flags=[])


def impact_report(config: MixerConfig) -> dict:
    return mixer.dry_run(config, executor=SerialExecutor(), quiet=True)


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
    unwritable = subprocess.run(
        [sys.executable, "-P", "-m", "dolma_sql", "-c", "tests/config/mixer.json", "mix", "--dry-run", "--report", "tests/config/mixer.json/report.json"],
        cwd=conformance,
        capture_output=True,
        text=True,
    )
    assert unwritable.returncode == 1 and unwritable.stderr.startswith("error: --report:") and "not writable" in unwritable.stderr
    assert "kept" not in unwritable.stdout  # refused before the work, not after it


def _write_jsonl_gz(path, rows) -> None:
    import gzip

    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def test_dry_run_counts_spans_and_min_text_length_like_a_real_mix(tmp_path):
    """Lengths come from the query and edited texts alone: they must match what mix writes, byte for byte."""
    texts = [
        "   short \u3000\u3000",  # below the minimum only once stripped
        "kept: a long enough text \u00e9\u00e9",
        "\x85\u2028" + "x" * 11 + " \n",  # unicode whitespace at both ends
        "drop-me " * 4,  # excluded by the filter
        "remove ALL of this\u00a0",  # a span deletes all but whitespace: too short after replacement
        "mail bob@example.com and é ü please",  # a span with multibyte text around it
        "\t \n",  # nothing but whitespace
    ]
    documents = [{"id": str(i), "text": text, "source": "t"} for i, text in enumerate(texts)]
    spans = {4: [[0, 18, 0.5]], 5: [[5, 20, 0.9], [27, 28, 0.8]]}
    attributes = [
        {"id": str(i), "attributes": {"t__spans": spans.get(i, []), "t__drop": [[0, 1, 1.0]] if "drop" in text else []}}
        for i, text in enumerate(texts)
    ]
    _write_jsonl_gz(tmp_path / "documents" / "part.jsonl.gz", documents)
    _write_jsonl_gz(tmp_path / "attributes" / "t" / "part.jsonl.gz", attributes)
    recipe = {
        "streams": [
            {
                "name": "s",
                "documents": [str(tmp_path / "documents" / "*.jsonl.gz")],
                "attributes": ["t"],
                "output": {"path": str(tmp_path / "out"), "min_text_length": 12},
                "filter": {"exclude": ["$.attributes[?(@.t__drop && @.t__drop[0] && @.t__drop[0][2] > 0.5)]"]},
                "span_replacement": [
                    {"span": "$.attributes.t__spans", "min_score": 0.85, "replacement": "[{}]"},
                    {"span": "$.attributes.t__spans", "max_score": 0.85, "replacement": ""},
                ],
            }
        ],
        "processes": 1,
    }
    config_path = tmp_path / "recipe.json"
    config_path.write_text(json.dumps(recipe))
    stream = impact_report(load(config_path))["streams"][0]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir()), "a dry run writes nothing"
    totals = mixer.run(load(config_path), executor=SerialExecutor(), quiet=True).totals
    written = read_outputs(str(tmp_path / "out"))
    assert stream["kept"]["documents"] == len(written) == totals["documents_kept"]
    assert stream["kept"]["text_bytes"] == sum(len(doc["text"].encode()) for doc in written)
    assert stream["min_text_length"]["documents"] == totals["documents_too_short"] == 4
    assert stream["after_filters"]["documents"] == len(texts) - 1
