"""``dolma-sql stat`` for people: files written before printing, a closed pipe is not a failure, one line
per summary (dolma's tables on request), accurate quantiles whatever ``--bins``, and plots that read at a
glance (log bins for long tails, labelled bars for a few values, shared span lengths drawn once)."""

from __future__ import annotations

import gzip
import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dolma_sql.analyzer import analyze
from dolma_sql.analyzer.distribution import Distribution
from dolma_sql.analyzer.histogram import Tracker, merge_details
from dolma_sql.analyzer.plots import figures
from dolma_sql.config import config_from
from dolma_sql.config.stat import StatConfig
from dolma_sql.runtime import SerialExecutor
from stat_helpers import summaries, write_attributes

WORDS = "doc__words__whitespace_tokenizer_v1__words"
QUALITY = "doc__quality__ft_quality__hq"
LANGUAGE = "doc__lang__ft_lang_id__en"
PARAGRAPHS = "para__score__paragraphs"
DOCUMENT_LEVEL = (WORDS, QUALITY, LANGUAGE)


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "dolma_sql", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, dict[str, np.ndarray]]:
    """Two attribute files: long-tailed word counts, a skewed quality score and a score that is always 1.0
    on whole documents, and paragraph spans; with every value, to compare quantiles with."""
    root = tmp_path_factory.mktemp("stat-output") / "attributes"
    rng = np.random.default_rng(5)
    values: dict[str, list] = {WORDS: [], QUALITY: [], "length": [], "paragraph_length": []}
    for index in range(2):
        rows = []
        for _ in range(2500):
            length = int(rng.lognormal(7.5, 1.3)) + 1
            words = max(1, int(length / 5.5))
            quality = float(rng.beta(5, 2))
            paragraphs = [[start, min(length, start + 200), float(rng.random())] for start in range(0, length, 201)]
            rows.append({WORDS: [[0, length, words]], QUALITY: [[0, length, quality]], LANGUAGE: [[0, length, 1.0]], PARAGRAPHS: paragraphs})
            values[WORDS].append(words)
            values[QUALITY].append(quality)
            values["length"].append(length)
            values["paragraph_length"] += [end - start for start, end, _ in paragraphs]
        write_attributes(root / f"{index:03d}.jsonl.gz", rows)
    return root, {name: np.asarray(found, dtype=np.float64) for name, found in values.items()}


@pytest.fixture(scope="module")
def detailed(corpus):
    root, _ = corpus
    return analyze(config_from({"attributes": [str(root)], "bins": 20}, StatConfig), executor=SerialExecutor())


def summary_lines(stdout: str) -> dict[str, dict[str, str]]:
    lines = stdout.splitlines()
    header = lines[0].split()
    return {line.split()[0]: dict(zip(header, line.split())) for line in lines[1:]}


def number(text: str) -> float:
    return float(text.replace(",", ""))


# ------------------------------------------------------------------------------ printing
def test_the_printout_is_one_line_per_summary_with_quantiles_that_do_not_depend_on_bins(corpus, tmp_path):
    root, values = corpus
    result = cli(["stat", "--attributes", str(root), "--bins", "20", "--report", str(tmp_path / "report")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "┏" not in result.stdout and "Traceback" not in result.stderr
    lines = summary_lines(result.stdout)
    assert len(result.stdout.splitlines()) == 1 + 8
    assert result.stdout.splitlines()[0].split() == ["name", "spans", "mean", "min", "p10", "p50", "p90", "p99", "max"]
    assert list(lines) == [f"{attribute}/{measure}" for attribute in (WORDS, QUALITY, LANGUAGE, PARAGRAPHS) for measure in ("score", "length")]

    # dolma's report keeps dolma's 20 equal-width bins: nearly every document in the first one...
    report = {summary["name"]: summary for summary in summaries(tmp_path / "report")}
    words = report[f"{WORDS}/score"]
    assert len(words["counts"]) == 20 and words["counts"][0] / words["total"] > 0.9
    # ...while the printed quantiles come from a detail of about 1%, whatever --bins is
    line = lines[f"{WORDS}/score"]
    assert number(line["spans"]) == 5000
    assert number(line["mean"]) == pytest.approx(values[WORDS].mean(), rel=1e-3)
    assert number(line["min"]) == values[WORDS].min() and number(line["max"]) == values[WORDS].max()
    for label, share in (("p10", 0.1), ("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
        assert number(line[label]) == pytest.approx(np.quantile(values[WORDS], share), rel=0.02), label
        assert number(lines[f"{QUALITY}/score"][label]) == pytest.approx(np.quantile(values[QUALITY], share), rel=0.02), label
    assert {lines[f"{LANGUAGE}/score"][label] for label in ("min", "p10", "p50", "p99", "max")} == {"1"}


def test_tables_and_totals_on_request(corpus, tmp_path):
    root, _ = corpus
    result = cli(["stat", "--attributes", str(root), "--tables", "--total"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("┏") == 8 and result.stdout.count("sum/total") == 8
    assert re.search(r"│\s*1\s*│\s*1\.0000\s*│\s*5,000\s*│", result.stdout)  # the constant score: one row, one value
    words_table = result.stdout[result.stdout.index(f"{WORDS}/score") :].split("└")[0]
    shares = [float(share) for share in re.findall(r"│\s*\[[^│]*│\s*([0-9.]+)\s*│", words_table)]
    assert len(shares) == 10 and max(shares) < 0.15  # ten ranges of about equal counts, not one bin of 99%
    summary = "\n".join(result.stdout.splitlines()[-9:])  # the summary lines follow the tables, with sums
    assert summary.splitlines()[0].split()[:4] == ["name", "spans", "sum", "mean"] and len(summary_lines(summary)) == 8


@pytest.mark.parametrize("flags", [["--tables"], []], ids=["tables-and-plots", "summary-only"])
def test_a_reader_that_closes_the_pipe_ends_printing_quietly_after_the_files_are_written(tmp_path, flags):
    """More than a pipe's buffer (64 KiB) of output, so that ``head`` surely leaves before the printing ends."""
    attributes = 40 if flags else 400
    rng = np.random.default_rng(3)
    rows = [{f"set__tagger_{k:03d}__attribute_with_a_long_name": [[0, int(n), float(rng.random())]] for k in range(attributes)} for n in rng.integers(1, 5000, 100)]
    write_attributes(tmp_path / "attributes" / "000.jsonl.gz", rows)
    plot = ["--plot", "plots"] if flags else []
    command = f"{sys.executable} -P -m dolma_sql stat --attributes attributes --report report {' '.join(plot + flags)} | head -3; echo \"exit=${{PIPESTATUS[0]}}\""
    result = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and lines[-1] == "exit=0", result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "Broken pipe" not in result.stderr and "error" not in result.stderr.lower()
    assert len(summaries(tmp_path / "report")) == 2 * attributes
    if plot:
        pngs = list((tmp_path / "plots").glob("*.png"))
        assert len(pngs) == attributes and all(png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for png in pngs)


def test_scale_is_checked(corpus, tmp_path):
    root, _ = corpus
    result = cli(["stat", "--attributes", str(root), "--scale", "logarithmic"], cwd=tmp_path)
    assert result.returncode == 1 and "scale" in result.stderr and "auto, linear, log" in result.stderr


# ------------------------------------------------------------------------------ plots
def panels_of(detailed, scale="auto") -> dict[str, dict[str, object]]:
    return {figure.attribute: {panel.measure: panel for panel in figure.panels} for figure in figures(detailed, scale)}


def test_long_tailed_values_get_log_spaced_bins_unless_a_scale_is_forced(detailed):
    panels = panels_of(detailed)
    words = panels[WORDS]["score"]
    assert words.scale == "log" and words.edges is not None
    ratios = words.edges[1:] / words.edges[:-1]
    assert np.allclose(ratios[5:], ratios[-1], rtol=0.05)  # equal on a log axis (whole numbers round the lowest bins)
    assert words.shares.max() < 10 and words.shares.sum() == pytest.approx(100)
    quality = panels[QUALITY]["score"]
    assert quality.scale == "linear" and np.allclose(np.diff(quality.edges), np.diff(quality.edges)[0])
    assert quality.shares.max() < 10 and quality.shares.sum() == pytest.approx(100)

    assert panels_of(detailed, "linear")[WORDS]["score"].scale == "linear"
    forced = panels_of(detailed, "log")[QUALITY]["score"]
    assert forced.scale == "log" and forced.shares.sum() == pytest.approx(100)


def test_a_constant_score_is_one_labelled_bar(detailed):
    language = panels_of(detailed)[LANGUAGE]["score"]
    assert language.labelled and language.values.tolist() == [1.0] and language.shares.tolist() == [100.0]


def test_span_lengths_that_several_attributes_share_are_drawn_once(detailed):
    drawn = {figure.attribute: figure for figure in figures(detailed)}
    assert [panel.measure for panel in drawn[WORDS].panels] == ["score", "length"]
    assert drawn[WORDS].panels[1].shared_with == 2 and drawn[WORDS].lengths_in is None
    for attribute in (QUALITY, LANGUAGE):
        assert [panel.measure for panel in drawn[attribute].panels] == ["score"] and drawn[attribute].lengths_in == WORDS
    assert [panel.measure for panel in drawn[PARAGRAPHS].panels] == ["score", "length"] and drawn[PARAGRAPHS].lengths_in is None


def test_plots_are_written_one_png_per_attribute(corpus, tmp_path):
    root, _ = corpus
    result = cli(["stat", "--attributes", str(root), "--plot", "plots"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    sizes = {}
    for attribute in (WORDS, QUALITY, LANGUAGE, PARAGRAPHS):
        png = (tmp_path / "plots" / f"{attribute}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        sizes[attribute] = struct.unpack(">II", png[16:24])  # width, height
    assert sizes[WORDS][0] == 2 * sizes[QUALITY][0]  # two panels, one panel (its lengths are the words')
    assert f"plot: plots{os.sep}{WORDS}.png" in " ".join(result.stderr.split())


# ------------------------------------------------------------------------------ the detail
@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(st.integers(0, 200), st.floats(0, 1), st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 10**7)), min_size=1, max_size=300),
    st.randoms(use_true_random=False),
)
def test_details_of_parts_merge_into_the_detail_of_the_whole(values, random):
    """Files are summarised apart and merged in any order: the detail is the same as of all values at once."""
    whole = Tracker()
    whole.add(np.asarray(values, dtype=np.float64))
    parts = []
    shuffled = list(values)
    random.shuffle(shuffled)
    cuts = sorted(random.sample(range(1, len(values)), min(3, len(values) - 1))) if len(values) > 1 else []
    for part in np.split(np.asarray(shuffled, dtype=np.float64), cuts):
        tracker = Tracker()
        tracker.add(part)
        parts.append(tracker.summary("x/score", 10).detail)
    expected = whole.summary("x/score", 10).detail
    merged = parts[0]
    for part in parts[1:]:
        merged = merge_details([merged, part])
    assert merged == expected
    distribution = Distribution.of(expected)
    assert distribution.minimum == min(values) and distribution.maximum == max(values) and distribution.total == len(values)
    lowest, highest = distribution.quantiles([0.0, 1.0])
    assert lowest == min(values) and highest == max(values)


def test_quantiles_read_from_the_detail_are_within_one_percent():
    rng = np.random.default_rng(8)
    for values in (rng.lognormal(6, 1.5, 20_000), rng.random(20_000), rng.integers(0, 40, 20_000).astype(float)):
        tracker = Tracker()
        tracker.add(values)
        distribution = Distribution.of(tracker.summary("x/length", 10).detail)
        shares = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99]
        expected = np.quantile(values, shares, method="inverted_cdf")
        assert np.allclose(distribution.quantiles(shares), expected, rtol=0.012, atol=1e-9)
