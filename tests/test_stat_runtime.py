"""``stat`` on the runtime: any executor and unit order, any URL, resuming after a kill, changed
inputs summarised again, and memory bounded by a batch, not a file."""

from __future__ import annotations

import gzip
import json
import shutil
import weakref
from pathlib import Path

import fsspec
import msgspec
import numpy as np
import pytest

import dolma_sql.analyzer.attribute_file
from dolma_sql.config import config_from
from dolma_sql.config.stat import StatConfig
from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.analyzer import run
from runtime_helpers import kill_at_random_points, no_temp_files, output_contents, run_cli, timed_run
from stat_helpers import random_rows, summaries, write_attributes

REPORT = "summaries.jsonl.gz"


@pytest.fixture(scope="module")
def attributes(tmp_path_factory) -> Path:
    """A folder of attribute files, large enough that a killed run stops in the middle of its units."""
    root = tmp_path_factory.mktemp("stat-runtime") / "attributes"
    rng = np.random.default_rng(7)
    for index, size in enumerate([9000, 6000, 9000, 300, 7000, 8000]):
        write_attributes(root / f"{index:03d}.jsonl.gz", random_rows(rng, size))
    return root


def stat(executor=None, **options) -> list:
    return run(config_from(options, StatConfig), executor=executor or SerialExecutor())


def test_shuffled_serial_order_and_the_local_pool_write_the_same_report(attributes, tmp_path):
    stat(SerialExecutor(shuffle=5), attributes=[str(attributes)], report=str(tmp_path / "serial"))
    with LocalExecutor(2) as pool:
        stat(pool, attributes=[str(attributes)], report=str(tmp_path / "pool"))
    assert (tmp_path / "serial" / REPORT).read_bytes() == (tmp_path / "pool" / REPORT).read_bytes()
    assert not no_temp_files(tmp_path)


def test_memory_and_file_urls_give_the_report_of_plain_paths(attributes, tmp_path):
    stat(attributes=[str(attributes)], report=str(tmp_path / "plain"))
    expected = (tmp_path / "plain" / REPORT).read_bytes()

    stat(attributes=[f"file://{attributes}/*.gz"], report=f"file://{tmp_path}/file-url")
    assert (tmp_path / "file-url" / REPORT).read_bytes() == expected

    memory = fsspec.filesystem("memory")
    root = "memory://stat-runtime-test"
    try:
        for path in sorted(attributes.iterdir()):
            memory.pipe(f"{root}/attributes/{path.name}", path.read_bytes())
        stat(attributes=[f"{root}/attributes"], report=f"{root}/report", work_dir={"output": f"{root}/work"})
        assert memory.cat(f"{root}/report/{REPORT}") == expected
        ledger = memory.ls(f"{root}/work/.dolma-sql", detail=False)
        assert len(ledger) == len(list(attributes.iterdir())) and all(record.endswith(".done") for record in ledger)
    finally:
        memory.rm(root, recursive=True)


def test_a_run_killed_at_random_points_and_rerun_writes_the_same_report(attributes, tmp_path):
    work = tmp_path / "work"
    clean_seconds = timed_run(["stat", "--attributes", str(attributes), "--report", str(tmp_path / "clean"), "--processes", "2"], tmp_path)
    args = ["stat", "--attributes", str(attributes), "--report", str(tmp_path / "resumed"), "--processes", "2", "--work_dir.output", str(work)]
    assert kill_at_random_points(args, tmp_path, kills=6, seed=3, clean_seconds=clean_seconds, watch=work) >= 1
    timed_run(args, tmp_path)
    assert output_contents(tmp_path / "resumed") == output_contents(tmp_path / "clean")
    assert not no_temp_files(tmp_path / "clean")
    assert len(list(work.glob("*.jsonl"))) == len(list(attributes.iterdir()))


def test_an_attribute_file_changed_between_runs_is_summarised_again(attributes, tmp_path):
    folder = tmp_path / "attributes"
    shutil.copytree(attributes, folder)
    work = str(tmp_path / "work")
    before = stat(attributes=[str(folder)], work_dir={"output": work})
    write_attributes(folder / "003.jsonl.gz", random_rows(np.random.default_rng(99), 500))
    after = stat(attributes=[str(folder)], work_dir={"output": work})
    assert after != before
    assert after == stat(attributes=[str(folder)])  # no work folder: every file summarised afresh
    assert len(list((tmp_path / "work").glob("*.jsonl"))) == len(list(folder.iterdir())) + 1


def test_other_options_do_not_reuse_the_per_file_summaries(attributes, tmp_path):
    work = str(tmp_path / "work")
    stat(attributes=[str(attributes)], work_dir={"output": work})
    assert stat(attributes=[str(attributes)], work_dir={"output": work}, bins=7) == stat(attributes=[str(attributes)], bins=7)


@pytest.mark.parametrize("kind", ["local", "serial"])
def test_the_executor_is_chosen_on_the_command_line(attributes, tmp_path, kind):
    result = run_cli(["stat", "--attributes", str(attributes), "--report", str(tmp_path / kind), "--executor", kind], tmp_path)
    assert result.returncode == 0, result.stderr
    assert summaries(tmp_path / kind) == msgspec.to_builtins(stat(attributes=[str(attributes)]))


def test_an_unknown_executor_is_a_config_error(attributes, tmp_path):
    result = run_cli(["stat", "--attributes", str(attributes), "--executor", "cluster"], tmp_path)
    assert result.returncode == 1 and "executor.kind" in result.stderr and "Traceback" not in result.stderr


def write_with_late_keys(path: Path) -> None:
    """Attribute lines where two keys are first met together on a late line, after a blank line, in
    the opposite order of Arrow's columns (a null on an early line makes ``aa_late`` Arrow's first)."""
    rows = random_rows(np.random.default_rng(3), 3000)
    rows[10]["aa_late"] = None
    rows[2000].update({"zz_late": [[0, 1, 0.5]], "aa_late": [[0, 2, 0.25]]})
    lines = [json.dumps({"id": str(index), "attributes": attributes}) for index, attributes in enumerate(rows)]
    lines.insert(1990, "")
    path.write_bytes(gzip.compress("\n".join(lines).encode() + b"\n"))


def test_a_file_is_read_a_few_batches_at_a_time(tmp_path, monkeypatch):
    """Memory does not grow with the file: the reader hands out small batches, no more than two of
    them (the one being summarised and the one being read) are alive at once, and the summaries,
    first-seen order included, are those of the file read in one batch."""
    write_with_late_keys(tmp_path / "late.jsonl.gz")
    in_one_batch = stat(attributes=[str(tmp_path / "late.jsonl.gz")])
    names = [summary.name for summary in in_one_batch]
    assert names[-4:] == ["zz_late/score", "zz_late/length", "aa_late/score", "aa_late/length"]

    alive, seen = set(), []
    peak = 0
    reader = dolma_sql.analyzer.attribute_file.iter_line_batches

    def small_batches(path, **options):
        nonlocal peak
        for batch in reader(path, **{**options, "batch_bytes": 16 << 10}):
            seen.append(len(batch))
            alive.add(len(seen))
            weakref.finalize(batch.lines, alive.discard, len(seen))
            peak = max(peak, len(alive))
            yield batch

    monkeypatch.setattr(dolma_sql.analyzer.attribute_file, "iter_line_batches", small_batches)
    assert stat(attributes=[str(tmp_path / "late.jsonl.gz")]) == in_one_batch
    assert len(seen) > 40 and sum(seen) == 3001
    assert peak <= 2
