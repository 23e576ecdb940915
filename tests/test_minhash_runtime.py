"""Minhash mode on the runtime: the outputs do not depend on the executor or the order units finish in; a run
killed at random points of each stage and rerun writes the attribute files and lineage of an uninterrupted run;
on S3 and the Ray executor it writes what it writes locally."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from minhash_helpers import lineage, minhash_config, planted_corpus, run_minhash
from runtime_helpers import cli_command, ledger_records, no_temp_files, output_contents, timed_run
from test_dedupe_runtime import generate

from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.storage import urls


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The bench generator's documents (it plants repeated and near-repeated documents), 8 files."""
    return generate(tmp_path_factory.mktemp("minhash-runtime") / "gen", docs=2500, files=8)


def copy_documents(documents: Path, root: Path) -> Path:
    shutil.copytree(documents, root / "documents")
    return root


def test_outputs_do_not_depend_on_the_executor_or_the_order_units_finish_in(corpus: Path, tmp_path: Path) -> None:
    outputs = {}
    for name, executor in (("serial", SerialExecutor(shuffle=1)), ("shuffled", SerialExecutor(shuffle=7)), ("local", LocalExecutor(2))):
        root = copy_documents(corpus, tmp_path / name)
        with executor:
            report = run_minhash(minhash_config(root, threshold=0.5) | {"processes": 2}, executor)
        assert report.minhash["removed_documents"] > 20
        contents = output_contents(root)
        rows = [{k: str(v).replace(str(root), "ROOT") for k, v in row.items()} for row in lineage(root / "attributes/mh/lineage.parquet")]
        outputs[name] = ({k: v for k, v in contents.items() if not k.endswith(".parquet")}, rows)
    assert outputs["serial"] == outputs["shuffled"] == outputs["local"]




STAGES = [("dedupe-minhash-signatures", 1), ("dedupe-minhash-signatures", 8), ("dedupe-minhash-lsh", 3), ("dedupe-minhash-lsh", 14),
          ("dedupe-minhash-clusters", 1), ("dedupe-minhash-attributes", 2)]  # fmt: skip
"""Where the runs are killed: once the ledger has that many records of that stage (plus a random short delay),
so that each stage is interrupted however busy the machine is."""


def test_a_run_killed_in_every_stage_resumes_to_the_outputs_of_an_uninterrupted_run(corpus: Path, tmp_path: Path) -> None:
    roots = {name: copy_documents(corpus, tmp_path / name) for name in ("clean", "killed")}
    config = minhash_config(Path("."), threshold=0.5) | {"processes": 2}
    (tmp_path / "config.json").write_text(json.dumps(config))
    arguments = ["-c", "../config.json", "dedupe"]
    timed_run(arguments, roots["clean"])
    rng = random.Random(4)
    killed = 0
    for command, count in STAGES:
        process = subprocess.Popen(cli_command(arguments), cwd=roots["killed"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        while process.poll() is None and ledger_records(roots["killed"], f"*.{command}.*.done") < count:
            time.sleep(0.005)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=rng.uniform(0, 0.5))
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            killed += 1
        process.wait()
    assert killed >= 3
    timed_run(arguments, roots["killed"])
    clean, resumed = output_contents(roots["clean"]), output_contents(roots["killed"])
    assert resumed == clean
    assert len([name for name in clean if name.startswith("attributes/mh/part-")]) == 8 and "attributes/mh/lineage.parquet" in clean
    assert not no_temp_files(roots["killed"])


def test_on_s3_and_ray_it_writes_what_it_writes_locally(tmp_path: Path, s3_server, ray_cluster) -> None:
    from dolma_sql.runtime.ray import RayExecutor

    local = tmp_path / "local"
    planted_corpus(local, originals=40, copies=10, files=4)
    reference = run_minhash(minhash_config(local, index=str(tmp_path / "index")))
    bucket = f"s3://{s3_server.new_bucket()}"
    s3_server.upload(local / "documents", f"{bucket}/corpus/documents")
    config = minhash_config(Path("."), index=f"{bucket}/index") | {"documents": [f"{bucket}/corpus/documents/*.jsonl.gz"], "work_dir": {"output": f"{bucket}/work"}}
    with RayExecutor(ray_cluster.address) as executor:
        report = run_minhash(config, executor)
    assert report.minhash == {**reference.minhash, "stage_seconds": report.minhash["stage_seconds"]}
    for path in sorted((local / "attributes" / "mh").glob("*.jsonl.gz")):
        assert urls.read_bytes(f"{bucket}/corpus/attributes/mh/{path.name}") == path.read_bytes(), path.name
    rows = [{k: str(v).replace(f"{bucket}/corpus", "ROOT") for k, v in row.items()} for row in lineage_on_s3(f"{bucket}/corpus/attributes/mh/lineage.parquet")]
    assert rows == [{k: str(v).replace(str(local), "ROOT") for k, v in row.items()} for row in lineage(local / "attributes/mh/lineage.parquet")]
    assert urls.exists(f"{bucket}/index/index.json")


def lineage_on_s3(url: str) -> list[dict]:
    import pyarrow.parquet as pq

    with urls.open_input(url) as handle:
        return pq.read_table(handle).to_pylist()
