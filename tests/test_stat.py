"""``dolma-sql stat``: the same summaries as upstream ``dolma stat``, tables, plots, errors."""

from __future__ import annotations

import gzip

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_oracle
from stat_helpers import random_rows, summaries, write_attributes
from dolma_sql.analyzer.histogram import bucket_values


def cli(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "dolma_sql", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def assert_same_summaries(ours: list[dict], upstream: list[dict], *, same_order: bool = True) -> None:
    """Counts, bins and totals equal; sums too (values are added one after the other, as upstream
    does), up to the order of files. Upstream orders the summaries of several files by its work
    folder's listing order, so with several files only the set of names is compared."""
    if same_order:
        assert [s["name"] for s in ours] == [s["name"] for s in upstream]
    else:
        assert sorted(s["name"] for s in ours) == sorted(s["name"] for s in upstream)
        ours, upstream = sorted(ours, key=lambda s: s["name"]), sorted(upstream, key=lambda s: s["name"])
    for mine, theirs in zip(ours, upstream):
        assert mine["counts"] == theirs["counts"], mine["name"]
        assert mine["bins"] == theirs["bins"], mine["name"]
        assert mine["total"] == theirs["total"], mine["name"]
        assert type(mine["sum"]) is type(theirs["sum"]) and math.isclose(mine["sum"], theirs["sum"], rel_tol=1e-9), mine["name"]
        if same_order:
            assert mine["sum"] == theirs["sum"], mine["name"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """Attribute files that exercise every branch of dolma's binning: many distinct values per file
    (folded per file), few (kept as buckets), empty span lists, keys missing on some lines, integer
    and float scores, fastText labels above 1, several spans per document, and zero lengths."""
    root = tmp_path_factory.mktemp("statcorpus") / "attributes" / "mixed"
    rng = np.random.default_rng(11)
    for file_index, size in enumerate([1500, 700, 40]):
        write_attributes(root / f"{file_index:03d}.jsonl.gz", random_rows(rng, size))
    return root


# ------------------------------------------------------------------------------ differential
@pytest.mark.oracle
@pytest.mark.parametrize("attribute_set", ["sample", "duplicate_paragraphs"])
def test_conformance_summaries_equal_upstream(conformance, oracle, tmp_path, attribute_set):
    provided = conformance / "tests/data/provided"
    pattern = f"attributes/{attribute_set}/*"
    run_oracle(oracle, ["stat", "--attributes", pattern, "--report", str(tmp_path / "upstream")], cwd=provided)
    ours = cli(["stat", "--attributes", pattern, "--report", str(tmp_path / "ours")], cwd=provided)
    assert ours.returncode == 0, ours.stderr
    assert_same_summaries(summaries(tmp_path / "ours"), summaries(tmp_path / "upstream"))


@pytest.fixture(scope="module")
def upstream_reports(generated, tmp_path_factory):
    """Upstream's report for each option set, computed once per module (upstream is slow to start)."""
    reports: dict[tuple[str, ...], list[dict]] = {}

    def report(oracle, options: tuple[str, ...]) -> list[dict]:
        if options not in reports:
            target = tmp_path_factory.mktemp("upstream")
            run_oracle(oracle, ["stat", "--attributes", str(generated / "*.jsonl.gz"), "--report", str(target), *options], cwd=target)
            reports[options] = summaries(target)
        return reports[options]

    return report


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("options", "upstream_options"),
    [((), ()), (("--bins", "7"), ("--bins", "7")), (("--bins", "300", "--regex", "random|label"),) * 2, (("--processes", "2"), ())],
)
def test_generated_summaries_equal_upstream(generated, oracle, upstream_reports, tmp_path, options, upstream_options):
    ours = cli(["stat", "--attributes", str(generated / "*.jsonl.gz"), "--report", str(tmp_path / "ours"), *options], cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    mine = summaries(tmp_path / "ours")
    assert_same_summaries(mine, upstream_reports(oracle, upstream_options), same_order=False)
    assert len(mine) == (4 if "--regex" in options else 8)


# ------------------------------------------------------------------------------ the bucket kernel
@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), st.integers(0, 10**9)), min_size=1, max_size=60))
def test_vectorized_buckets_equal_math_frexp(values):
    expected: dict[tuple[int, int], int] = {}
    for value in values:
        mantissa, exponent = math.frexp(value)
        key = (math.floor(mantissa * 100_000), exponent)
        expected[key] = expected.get(key, 0) + 1
    buckets = bucket_values(np.array(values, dtype=np.float64))
    got = {(int(m), int(e)): int(c) for m, e, c in zip(buckets.mantissa, buckets.exponent, buckets.count)}
    assert got == expected
    for (mantissa, exponent), value in zip(zip(buckets.mantissa, buckets.exponent), buckets.values()):
        assert value == int(mantissa) / 100_000 * 2 ** int(exponent)


# ------------------------------------------------------------------------------ the command
def test_tables_totals_plots_and_config_file(generated, tmp_path):
    config = tmp_path / "stat.yaml"
    config.write_text(f"attributes: ['{generated}/*.jsonl.gz']\nreport: {tmp_path / 'report'}\ntotal: true\n")
    result = cli(["-c", str(config), "stat", "--plot", str(tmp_path / "plots"), "--bins", "50", "--tables"])
    assert result.returncode == 0, result.stderr
    for name in ("exp__random_number_v1__random/score", "bff_duplicate_paragraph_spans/length"):
        assert name in result.stdout
    assert "sum/total" in result.stdout and "2,240" in result.stdout  # spans of the random attribute
    assert len(summaries(tmp_path / "report")) == 8 and not list((tmp_path / "report").glob("*.tmp"))
    plots = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert plots == sorted(
        f"{name}.png"
        for name in ("exp__random_number_v1__random", "exp__char_length_v1__length", "exp__ft_lang__en__label__en", "bff_duplicate_paragraph_spans")
    )
    for plot in (tmp_path / "plots").iterdir():
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 5000


def test_work_dir_makes_reruns_skip_finished_files(generated, tmp_path):
    work = tmp_path / "work"
    args = ["stat", "--attributes", str(generated / "*.jsonl.gz"), "--work_dir.output", str(work)]
    first = cli([*args, "--report", str(tmp_path / "one")])
    assert first.returncode == 0, first.stderr
    partials = {p: p.stat().st_mtime_ns for p in work.glob("*.jsonl")}
    assert len(partials) == 3
    second = cli([*args, "--report", str(tmp_path / "two")])
    assert second.returncode == 0, second.stderr
    assert {p: p.stat().st_mtime_ns for p in work.glob("*.jsonl")} == partials
    assert summaries(tmp_path / "one") == summaries(tmp_path / "two")


@pytest.mark.parametrize(("attribute_set", "line", "found"), [("toxicity", 1, "float"), ("pii", 3, "object")])
def test_attributes_that_are_not_span_lists_are_named_with_file_and_line(conformance, attribute_set, line, found):
    """Upstream crashes on these files (a DolmaError traceback for toxicity, an EOFError for pii)."""
    provided = conformance / "tests/data/provided"
    result = cli(["stat", "--attributes", f"attributes/{attribute_set}/000.json.gz"], cwd=provided)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    message = " ".join(result.stderr.split())
    assert f"attributes/{attribute_set}/000.json.gz:{line}:" in message and found in message


def test_a_malformed_line_is_named_past_lines_without_attributes(tmp_path):
    """A line with no ``attributes`` adds nothing and is no error; the malformed line after it is the one named."""
    lines = [b'{"id": "0", "attributes": {"a": [[0, 3, 1.0]]}}', b'{"id": "1"}', b'{"id": "2", "attributes": {"a": []}}', b"{oops"]
    (tmp_path / "attributes.jsonl.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    result = cli(["stat", "--attributes", str(tmp_path / "attributes.jsonl.gz")])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    message = " ".join(result.stderr.split())
    assert f"{tmp_path / 'attributes.jsonl.gz'}:4: malformed JSON" in message, message
    assert "each line must be one JSON object" in message and "--attributes globs" not in message


def test_several_globs_and_a_folder_are_accepted(conformance, tmp_path):
    """Upstream fails with several globs ("number of source and destination prefixes must be the same")."""
    provided = conformance / "tests/data/provided"
    both = cli(["stat", "--attributes", "attributes/sample", "attributes/duplicate_paragraphs/*", "--report", str(tmp_path / "both")], cwd=provided)
    assert both.returncode == 0, both.stderr
    names = [s["name"] for s in summaries(tmp_path / "both")]
    assert names == [
        "sample__random_number_v1__random/score",
        "sample__random_number_v1__random/length",
        "bff_duplicate_paragraph_spans/score",
        "bff_duplicate_paragraph_spans/length",
    ]
    nothing = cli(["stat", "--attributes", "attributes/none/*"], cwd=provided)
    assert nothing.returncode == 1 and "no files match" in nothing.stderr


def test_a_folder_stands_for_its_attribute_files_not_the_lineage_table_beside_them(conformance, tmp_path):
    """``dedupe --exact`` and MinHash write ``lineage.parquet`` into the set's folder, a killed run may leave a temporary
    file: a folder given to stat skips them."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "attributes" / "dup_ex"
    shutil.copytree(conformance / "tests/data/provided/attributes/duplicate_paragraphs", folder)
    pq.write_table(pa.table({"id": ["a"]}), folder / "lineage.parquet")
    (folder / "part-9.jsonl.gz.4242-0123abcd.tmp").write_bytes(b"\x1f\x8b")  # a killed run's temporary file
    result = cli(["stat", "--attributes", str(folder), "--report", str(tmp_path / "report")])
    assert result.returncode == 0, result.stderr
    assert [s["name"] for s in summaries(tmp_path / "report")] == ["bff_duplicate_paragraph_spans/score", "bff_duplicate_paragraph_spans/length"]


def test_bad_options_are_config_errors(generated):
    for args, message in ((["--bins", "0"], "bins"), (["--regex", "("], "regex"), (["--bogus", "1"], "bogus")):
        result = cli(["stat", "--attributes", str(generated / "*.gz"), *args])
        assert result.returncode == 1 and message in result.stderr and "Traceback" not in result.stderr
