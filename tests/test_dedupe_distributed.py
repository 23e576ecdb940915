"""Dedup across workers (issue 16), on the local pool and on a simulated 3-node Ray cluster.

- Partitioned Bloom dedup (``dedupe.num_partitions: 4`` with ``dedupe.all_partitions``: every partition one
  unit with its own filter) marks exactly what one filter marks: the spans of the partitions' attributes,
  merged per document, are the single run's spans (filters sized for no false positives), and mixing on
  every partition's attribute gives the single attribute's mix.
- Exact dedup aggregated on 4 hash partitions, with its work folder on an S3 server, writes what one
  aggregation writes: the same attribute files and the same lineage table, byte for byte.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from runtime_helpers import output_contents

from conftest import SHARED
from dolma_sql import api, deduper
from dolma_sql.config import config_from
from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.errors import ConfigError
from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.storage import urls

PARTITIONS = 4
MODES = {"paragraphs": {"paragraphs": {"attribute_name": "dup"}, "skip_empty": True}, "url": {"documents": {"attribute_name": "dup", "key": "$.metadata.url"}}}


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dedupe-distributed") / "gen"
    subprocess.run([sys.executable, str(SHARED / "bench" / "gencorpus.py"), str(root), "--docs", "1200", "--files", "6", "--seed", "7"],
                   check=True, capture_output=True)  # fmt: skip
    return root / "documents"


@pytest.fixture(params=["local", pytest.param("ray", marks=pytest.mark.ray)])
def executor(request):
    """The local pool (2 processes), or Ray on 3 nodes of 1 CPU each, entered for the whole test."""
    if request.param == "local":
        chosen = LocalExecutor(2)
    else:
        from dolma_sql.runtime.ray import RayExecutor

        chosen = RayExecutor(request.getfixturevalue("ray_nodes").address)
    with chosen:
        yield chosen


def copy_documents(documents: Path, root: Path) -> str:
    shutil.copytree(documents, root / "documents")
    return str(root)


def settings(root: str, by: str, **dedupe) -> dict:
    """A dedupe of ``<root>/documents`` by paragraph or URL (``by``), attributes and filter under ``root``."""
    return {
        "documents": [f"{root}/documents/*.jsonl.gz"],
        "dedupe": {"name": "dd", **MODES[by], **dedupe},
        "bloom_filter": {"file": f"{root}/filter.bin", "read_only": False, "estimated_doc_count": 100_000, "desired_false_positive_rate": 1e-9},
    }


def deduped(config: dict, executor=None) -> deduper.Report:
    return deduper.run(config_from(config, DeduperConfig), executor=executor or SerialExecutor(), quiet=True)


def attribute_rows(root: str, folder: str) -> dict[str, list[dict]]:
    rows = {}
    for path in sorted(Path(root, "attributes", folder).glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            rows[path.name] = [json.loads(line) for line in handle]
    return rows


def merged_spans(root: str, partitions: int) -> dict[str, list[list]]:
    """Per document (file and line), the spans of every partition's attribute, in offset order."""
    merged: dict[str, list] = {}
    for index in range(partitions):
        for name, rows in attribute_rows(root, f"dd_{index}").items():
            for line, row in enumerate(rows):
                assert set(row["attributes"]) <= {f"dup_{index}"}, "each partition writes its own attribute key"
                merged.setdefault(f"{name}:{line}", []).extend(row["attributes"].get(f"dup_{index}", []))
    return {key: sorted(spans) for key, spans in merged.items()}


def single_spans(root: str) -> dict[str, list[list]]:
    return {f"{name}:{line}": row["attributes"].get("dup", []) for name, rows in attribute_rows(root, "dd").items() for line, row in enumerate(rows)}


@pytest.mark.parametrize("mode", MODES)
def test_all_partitions_mark_what_one_filter_marks(documents, tmp_path, executor, mode):
    single = copy_documents(documents, tmp_path / "single")
    deduped(settings(single, mode))
    expected = single_spans(single)
    assert sum(len(spans) for spans in expected.values()) > 20

    partitioned = copy_documents(documents, tmp_path / "partitioned")
    report = deduped(settings(partitioned, mode, num_partitions=PARTITIONS, all_partitions=True), executor)
    assert merged_spans(partitioned, PARTITIONS) == expected
    assert report.stats.files == PARTITIONS * 6 and report.stats.duplicate_keys == sum(len(spans) for spans in expected.values())
    for index in range(PARTITIONS):
        assert urls.exists(f"{partitioned}/filter.bin.{index}"), "each partition owns one filter file"
        marked = sum(len(row["attributes"].get(f"dup_{index}", [])) for rows in attribute_rows(partitioned, f"dd_{index}").values() for row in rows)
        assert marked > 0, f"partition {index} holds some of the duplicate keys"

    alone = copy_documents(documents, tmp_path / "alone")  # partition 2 as dolma runs it: one command of its own
    deduped(settings(alone, mode, num_partitions=PARTITIONS, partition_index=2) | {"bloom_filter": settings(alone, mode)["bloom_filter"] | {"file": f"{alone}/filter.bin.2"}})
    assert attribute_rows(alone, "dd_2") == attribute_rows(partitioned, "dd_2")

    rerun = deduped(settings(partitioned, mode, num_partitions=PARTITIONS, all_partitions=True), executor)
    assert (rerun.stats.skipped_files, rerun.stats.files) == (PARTITIONS * 6, 0), "every partition resumes from its ledger"


def test_mixing_on_every_partition_equals_mixing_on_one_filter(documents, tmp_path):
    """dolma's recipe for partitions: the mixer lists every partition's attribute set and removes the spans of each."""
    single = copy_documents(documents, tmp_path / "single")
    deduped(settings(single, "paragraphs"))
    partitioned = copy_documents(documents, tmp_path / "partitioned")
    deduped(settings(partitioned, "paragraphs", num_partitions=PARTITIONS, all_partitions=True))

    def mix(root: str, sets: list[str], keys: list[str]) -> dict[str, bytes]:
        stream = {
            "name": "deduped",
            "documents": [f"{root}/documents/*.jsonl.gz"],
            "attributes": sets,
            "output": {"path": f"{root}/mixed", "max_size_in_bytes": 10**9, "discard_fields": ["attributes"]},
            "span_replacement": [{"span": f"$.attributes.{key}", "min_score": 0.5, "replacement": ""} for key in keys],
        }
        api.mix({"streams": [stream], "processes": 1}, executor=SerialExecutor())
        return output_contents(Path(root, "mixed"))

    expected = mix(single, ["dd"], ["dup"])
    assert expected and mix(partitioned, [f"dd_{i}" for i in range(PARTITIONS)], [f"dup_{i}" for i in range(PARTITIONS)]) == expected


def test_exact_on_hash_partitions_writes_what_one_aggregation_writes(documents, tmp_path, executor, s3_server):
    """The work folder (extracted tables, duplicates per partition, lineage parts) is on S3, as on a cluster."""
    reference = copy_documents(documents, tmp_path / "reference")
    deduped(settings(reference, "paragraphs", mode="exact", exact_partitions=1))
    distributed = copy_documents(documents, tmp_path / "distributed")
    work = f"s3://{s3_server.new_bucket()}/work"
    report = deduped(settings(distributed, "paragraphs", mode="exact", exact_partitions=PARTITIONS) | {"work_dir": {"output": work}}, executor)
    assert report.stats.files == 6 and report.stats.duplicate_keys > 100

    expected, got = output_contents(Path(reference)), output_contents(Path(distributed))
    assert sorted(got) == sorted(expected)
    for name in expected:
        if name != "attributes/dd/lineage.parquet":
            assert got[name] == expected[name], name
    lineage = {root: pq.read_table(f"{root}/attributes/dd/lineage.parquet").to_pylist() for root in (reference, distributed)}
    assert len(lineage[reference]) == report.stats.duplicate_keys
    assert [{k: str(v).replace(distributed, reference) for k, v in row.items()} for row in lineage[distributed]] == [
        {k: str(v) for k, v in row.items()} for row in lineage[reference]
    ], "the same rows in the same order: each duplicate key, then the document its first occurrence is in"
    fs, path = urls.filesystem(work)
    left = [name for name, info in fs.find(path, detail=True).items() if info["type"] == "file"]
    assert left == [], "the work folder's objects are removed once the run has succeeded"


@pytest.mark.parametrize(
    ("dedupe", "field"),
    [
        ({"mode": "exact", "num_partitions": 2, "all_partitions": True}, "dedupe.all_partitions"),
        ({"mode": "exact", "exact_partitions": 0}, "dedupe.exact_partitions"),
        ({"mode": "exact", "exact_memory_mb": 16}, "dedupe.exact_memory_mb"),
    ],
)
def test_partition_options_are_checked_when_the_config_loads(tmp_path, dedupe, field):
    with pytest.raises(ConfigError) as error:
        config_from(settings(str(tmp_path), "paragraphs", **dedupe), DeduperConfig)
    assert error.value.path == field


def test_an_exact_run_stopped_in_a_step_resumes_at_that_step(documents, tmp_path, monkeypatch):
    """The work folder's ledger: a rerun after a failure while finishing file groups aggregates nothing again."""
    from dolma_sql.deduper import exact_run

    clean = copy_documents(documents, tmp_path / "clean")
    deduped(settings(clean, "paragraphs", mode="exact", exact_partitions=PARTITIONS))
    stopped = copy_documents(documents, tmp_path / "stopped")
    config = settings(stopped, "paragraphs", mode="exact", exact_partitions=PARTITIONS)
    calls = {"aggregate": 0, "finish": 0}
    aggregate, finish = exact_run.aggregate_partition, exact_run.finish_group

    def counted_aggregate(unit):
        calls["aggregate"] += 1
        return aggregate(unit)

    def finish_until_the_third(unit):
        calls["finish"] += 1
        if calls["finish"] == 3:
            raise KeyboardInterrupt("killed while finishing the third group")
        return finish(unit)

    monkeypatch.setattr(exact_run, "aggregate_partition", counted_aggregate)
    monkeypatch.setattr(exact_run, "finish_group", finish_until_the_third)
    with pytest.raises(KeyboardInterrupt):
        deduped(config)
    assert calls == {"aggregate": PARTITIONS, "finish": 3}
    calls.update(aggregate=0, finish=10)
    report = deduped(config)
    assert calls == {"aggregate": 0, "finish": 10 + 2}, "only the two groups not finished are done again"
    assert report.stats.files == 6, "the report counts the groups finished before too"
    lineage = "attributes/dd/lineage.parquet"
    rows = {root: [{k: str(v).replace(root, "ROOT") for k, v in row.items()} for row in pq.read_table(f"{root}/{lineage}").to_pylist()] for root in (clean, stopped)}
    assert rows[stopped] == rows[clean]
    assert {k: v for k, v in output_contents(Path(stopped)).items() if k != lineage} == {k: v for k, v in output_contents(Path(clean)).items() if k != lineage}


def test_file_partitions_share_out_the_files(documents, tmp_path):
    """``file_partition``: each partition reads only the files whose path hashes to it, so each file is read by one."""
    root = copy_documents(documents, tmp_path)
    read = {}
    for index in range(2):
        config = settings(root, "paragraphs", num_partitions=2, partition_index=index, file_partition=True)
        config["bloom_filter"]["file"] = f"{root}/filter.bin.{index}"
        deduped(config)
        read[index] = sorted(path.name for path in Path(root, "attributes", f"dd_{index}").glob("*.jsonl.gz"))
    assert read[0] and read[1] and sorted(read[0] + read[1]) == sorted(path.name for path in documents.glob("*.jsonl.gz"))
