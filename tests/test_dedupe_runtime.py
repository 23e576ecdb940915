"""``dedupe`` (Bloom and exact) on the runtime: its outputs depend neither on the executor nor on the order
files finish in, remote URLs run the same code as local paths, an object-store volume is written without
renames, and a run killed at any point resumes to the outputs of an uninterrupted run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from runtime_helpers import kill_at_random_points, no_temp_files, output_contents, run_cli, timed_run

from conftest import SHARED
from dolma_sql import deduper
from dolma_sql.config import config_from
from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.bloom import BloomFilter
from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.local import LocalExecutor

MODES = ("bloom", "exact")


def generate(root: Path, *, docs: int, files: int) -> Path:
    subprocess.run([sys.executable, str(SHARED / "bench" / "gencorpus.py"), str(root), "--docs", str(docs), "--files", str(files), "--seed", "5"],
                   check=True, capture_output=True)  # fmt: skip
    return root / "documents"


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> Path:
    return generate(tmp_path_factory.mktemp("dedupe-runtime") / "gen", docs=900, files=5)


def settings(root: str, mode: str, **top) -> dict:
    """A paragraph dedupe of ``<root>/documents``: attributes, filter, lineage and report all under ``root``."""
    return {
        "documents": [f"{root}/documents/*.jsonl.gz"],
        "dedupe": {"name": "dd", "mode": mode, "paragraphs": {"attribute_name": "dup"}, "skip_empty": True},
        "bloom_filter": {"file": f"{root}/filter.bin", "read_only": False, "estimated_doc_count": 100_000, "desired_false_positive_rate": 1e-9},
        "report": f"{root}/report.json",
        **top,
    }


def deduped(config: dict, executor=None) -> deduper.Report:
    return deduper.run(config_from(config, DeduperConfig), executor=executor or SerialExecutor(), quiet=True)


def copy_documents(documents: Path, root: Path) -> Path:
    shutil.copytree(documents, root / "documents")
    return root


def comparable(contents: dict[str, bytes], root: str) -> dict[str, object]:
    """Outputs with what names their place left out: lineage rows with document paths relative to ``root``,
    the report without its seconds and lineage URL."""
    result: dict[str, object] = {}
    for name, data in contents.items():
        if name.endswith(".parquet"):
            rows = pq.read_table(pa.BufferReader(data)).to_pylist()
            result[name] = [tuple(str(value).replace(root + "/", "") for value in row.values()) for row in rows]
        elif name.endswith("report.json"):
            report = json.loads(data)
            result[name] = {key: value for key, value in report.items() if key not in ("seconds", "lineage")}
        else:
            result[name] = data
    return result


@pytest.mark.parametrize("mode", MODES)
def test_outputs_do_not_depend_on_the_executor_or_the_order_units_finish_in(documents, tmp_path, monkeypatch, mode):
    def run_in(folder: str, executor) -> dict[str, bytes]:
        monkeypatch.chdir(copy_documents(documents, tmp_path / folder))  # relative paths: every lineage names ./documents
        config = settings(".", mode)
        del config["report"]  # it holds the run's seconds
        with executor:  # workers start in the run's folder
            deduped(config, executor)
        return output_contents(tmp_path / folder)

    expected = run_in("local", LocalExecutor(2))
    assert "attributes/dd/part-0004.jsonl.gz" in expected and ("filter.bin" in expected) == (mode == "bloom")
    assert ("attributes/dd/lineage.parquet" in expected) == (mode == "exact")
    for seed in (1, 2, 3):
        assert run_in(f"serial-{seed}", SerialExecutor(shuffle=seed)) == expected, f"seed {seed}"


def memory_contents(folder: str) -> dict[str, bytes]:
    """``output_contents`` of a folder of the in-memory filesystem."""
    import gzip

    memory = fsspec.filesystem("memory")
    contents = {}
    for path in memory.find(folder):
        relative = path[len(folder) :].lstrip("/")
        if ".dolma-sql" not in relative.split("/"):
            data = memory.cat_file(path)
            contents[relative] = gzip.decompress(data) if relative.endswith(".gz") else data
    return contents


@pytest.mark.parametrize("mode", MODES)
def test_memory_and_file_urls_give_the_outputs_of_plain_paths(documents, tmp_path, mode):
    plain = str(copy_documents(documents, tmp_path / "plain"))
    deduped(settings(plain, mode))
    expected = comparable(output_contents(tmp_path / "plain"), plain)

    file_url = f"file://{copy_documents(documents, tmp_path / 'file-url')}"
    deduped(settings(file_url, mode))
    assert comparable(output_contents(tmp_path / "file-url"), file_url) == expected

    memory = fsspec.filesystem("memory")
    folder = f"/dedupe-{mode}"
    for path in documents.iterdir():
        memory.pipe_file(f"{folder}/documents/{path.name}", path.read_bytes())
    staging = tmp_path / "staging"
    try:
        report = deduped(settings(f"memory://{folder.lstrip('/')}", mode, work_dir={"output": str(staging)}))
        assert report.stats.files == 5
        assert comparable(memory_contents(folder), f"memory://{folder.lstrip('/')}") == expected
        assert not list(staging.iterdir()), "outputs are staged in work_dir.output, then uploaded; the work folder is removed"
    finally:
        memory.rm(folder, recursive=True)


@pytest.mark.parametrize("mode", MODES)
def test_an_object_store_volume_is_written_without_renames(documents, tmp_path, monkeypatch, mode):
    """``is_s3_volume``: every output under the destination is written whole in ``work_dir.output``, then copied."""
    plain = str(copy_documents(documents, tmp_path / "plain"))
    deduped(settings(plain, mode))
    volume = str(copy_documents(documents, tmp_path / "volume"))
    renamed_into_volume = []
    replace = os.replace

    def refusing_replace(source, target, *args, **kwargs):
        if str(target).startswith(volume):
            renamed_into_volume.append(str(target))
        return replace(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", refusing_replace)
    deduped(settings(volume, mode, is_s3_volume=True, work_dir={"output": str(tmp_path / "staging")}))
    assert renamed_into_volume == []
    assert comparable(output_contents(tmp_path / "volume"), volume) == comparable(output_contents(tmp_path / "plain"), plain)
    commands = {path.name.split(".")[-3] for path in (Path(volume) / "attributes/dd/.dolma-sql").iterdir()}  # <output>.<command>.<options>.done
    assert commands == {"bloom": {"dedupe"}, "exact": {"dedupe-run"}}[mode], "Bloom mode records each file beside it, exact mode its run"


def test_a_crash_between_the_ledger_records_and_the_filter_checkpoint_redoes_those_files(documents, tmp_path, monkeypatch):
    """Records are written ahead of the filter that backs them: without that filter they do not count."""
    clean = str(copy_documents(documents, tmp_path / "clean"))
    deduped(settings(clean, "bloom"))
    crashed = str(copy_documents(documents, tmp_path / "crashed"))
    config = settings(crashed, "bloom", bloom_filter={**settings(crashed, "bloom")["bloom_filter"], "checkpoint_seconds": 0})
    saves = []
    save = BloomFilter.save

    def dies_at_the_third_checkpoint(self, url, **kwargs):
        saves.append(url)
        if len(saves) >= 3:  # a killed process saves nothing more
            raise KeyboardInterrupt("killed after the records of the third file")
        return save(self, url, **kwargs)

    monkeypatch.setattr(BloomFilter, "save", dies_at_the_third_checkpoint)
    with pytest.raises(KeyboardInterrupt):
        deduped(config)
    monkeypatch.setattr(BloomFilter, "save", save)
    assert len(list(Path(crashed, "attributes/dd/.dolma-sql").iterdir())) == 3
    report = deduped(config)
    assert (report.stats.skipped_files, report.stats.files) == (2, 3)
    assert comparable(output_contents(tmp_path / "crashed"), crashed) | {"report.json": None} == comparable(
        output_contents(tmp_path / "clean"), clean
    ) | {"report.json": None}


def test_a_new_filter_redoes_every_file(documents, tmp_path):
    """The ledger records count only with the filter that holds their keys: deleting it starts over."""
    root = str(copy_documents(documents, tmp_path / "run"))
    deduped(settings(root, "bloom"))
    expected = output_contents(tmp_path / "run")
    assert deduped(settings(root, "bloom")).stats.skipped_files == 5
    Path(root, "filter.bin").unlink()
    report = deduped(settings(root, "bloom"))
    assert (report.stats.skipped_files, report.stats.files) == (0, 5)
    assert output_contents(tmp_path / "run") == expected | {"report.json": output_contents(tmp_path / "run")["report.json"]}


@pytest.mark.parametrize("kind", ["local", "serial"])
def test_the_cli_accepts_an_executor(documents, tmp_path, kind):
    root = str(copy_documents(documents, tmp_path / kind))
    (tmp_path / "config.json").write_text(json.dumps(settings(root, "bloom", processes=2)))
    result = run_cli(["-c", "config.json", "dedupe", "--executor", kind], tmp_path)
    assert result.returncode == 0, result.stderr
    expected = str(copy_documents(documents, tmp_path / "expected"))
    deduped(settings(expected, "bloom"))
    assert comparable(output_contents(Path(root)), root) == comparable(output_contents(Path(expected)), expected)


@pytest.fixture(scope="module")
def large_documents(tmp_path_factory) -> Path:
    """Enough documents that a run takes a few seconds, so that kills land while files are being resolved."""
    return generate(tmp_path_factory.mktemp("dedupe-kills") / "gen", docs=6000, files=8)


def killed_and_clean(documents: Path, tmp_path: Path, mode: str, *, kills: int, seed: int) -> tuple[Path, Path]:
    """A clean CLI run and a run killed ``kills`` times at random points then rerun, each in its own folder
    (by relative paths, so that their lineage tables name the same documents)."""
    roots = {name: copy_documents(documents, tmp_path / name) for name in ("clean", "killed")}
    config = settings(".", mode, processes=2, bloom_filter={**settings(".", mode)["bloom_filter"], "checkpoint_seconds": 0})
    del config["report"]  # its counts differ after a resumed run (files skipped)
    arguments = ["-c", "../config.json", "dedupe"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    clean_seconds = timed_run(arguments, roots["clean"])
    killed = kill_at_random_points(arguments, roots["killed"], kills=kills, seed=seed, clean_seconds=clean_seconds)
    assert killed >= 1, "the first run is killed once it has finished a unit"
    timed_run(arguments, roots["killed"])
    return roots["clean"], roots["killed"]


def test_a_bloom_run_killed_at_random_points_resumes_to_the_output_of_an_uninterrupted_run(large_documents, tmp_path):
    clean, killed = killed_and_clean(large_documents, tmp_path, "bloom", kills=5, seed=3)
    assert output_contents(killed) == output_contents(clean)
    assert len([name for name in output_contents(clean) if name.startswith("attributes/")]) == 8
    assert not no_temp_files(killed)


def test_an_exact_run_killed_and_rerun_writes_the_lineage_in_checking_order(large_documents, tmp_path):
    """Issue 17 item 11: the lineage rows are ordered by duplicate file (input order), line and key, so a
    resumed run writes the same bytes as an uninterrupted one (before, the rerun's order was the join's)."""
    clean, killed = killed_and_clean(large_documents, tmp_path, "exact", kills=3, seed=5)
    lineage = "attributes/dd/lineage.parquet"
    rows = duckdb.sql(f"SELECT duplicate_file, duplicate_line FROM '{killed / lineage}'").fetchall()
    assert len(rows) > 1000 and rows == sorted(rows)
    assert output_contents(killed) == output_contents(clean)
    assert not no_temp_files(killed)
