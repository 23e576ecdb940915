"""dolma-sql warc on object storage and on Ray: WARC files, documents, rejects, ledger and the recorded ``added``
all at ``s3://`` URLs, on the local pool and on the Ray cluster, give the documents a local run gives."""

from __future__ import annotations

import gzip
import json
import shutil
import uuid
from pathlib import Path

import pytest
from s3_helpers import cli, files_under, ledger_records, ok

from conftest import CONFORMANCE
from dolma_sql.config import config_from
from dolma_sql.config.warc import WarcConfig
from dolma_sql.runtime import SerialExecutor
from dolma_sql.storage import urls
from dolma_sql.warc import run
from warc_records import page, response, warcinfo, write_warc

ADDED = "2024-05-01T12:00:00.000Z"


@pytest.fixture()
def inputs(tmp_path) -> Path:
    """The conformance samples and a WARC file with a rejected record (a digest without its algorithm)."""
    folder = tmp_path / "warcs"
    folder.mkdir()
    for sample in sorted((CONFORMANCE / "tests" / "data" / "warc").glob("*.warc.gz")):
        shutil.copy(sample, folder / sample.name)
    write_warc(folder / "own.warc.gz", [warcinfo(), response("https://example.com/bad", page("Bad"), digest="nocolon"), response("https://example.com/ok", page("Ok"))])
    return folder


def config(root: str, **options) -> dict:
    return {"documents": [f"{root}/warcs/*.warc.gz"], "destination": [f"{root}/out"], "rejects": f"{root}/rejects",
            "source_name": "cc", "added": ADDED, **options}


def outputs(root: str) -> dict[str, bytes]:
    """Documents and rejects under ``root``, decompressed, the WARC paths in rejects made relative."""
    found = {}
    for folder in ("out", "rejects"):
        for name, data in files_under(f"{root}/{folder}").items():
            if not name.startswith(".dolma-sql"):
                found[f"{folder}/{name}"] = gzip.decompress(data).replace(root.encode(), b"ROOT")
    return found


def local_reference(inputs: Path) -> dict[str, bytes]:
    root = str(inputs.parent)
    run(config_from(config(root), WarcConfig), executor=SerialExecutor(), quiet=True)
    return outputs(root)


def remote_root(s3_server, inputs: Path) -> str:
    root = f"s3://{s3_server.new_bucket()}/crawl-{uuid.uuid4().hex[:6]}"
    s3_server.upload(inputs, f"{root}/warcs")
    return root


def test_on_s3_with_the_local_pool(inputs, s3_server, tmp_path):
    reference = local_reference(inputs)
    assert sorted(reference) == ["out/own.jsonl.gz", "out/sample-0000.jsonl.gz", "out/sample-0001.jsonl.gz",
                                 "rejects/own.rejects.jsonl.gz", "rejects/sample-0000.rejects.jsonl.gz", "rejects/sample-0001.rejects.jsonl.gz"]
    assert b'"reason":"bad_digest"' in reference["rejects/own.rejects.jsonl.gz"]
    root = remote_root(s3_server, inputs)
    (tmp_path / "warc.json").write_text(json.dumps(config(root, processes=2)))
    result = ok(cli(["-c", str(tmp_path / "warc.json"), "warc"], tmp_path))
    assert "38 documents written" in result.stderr + result.stdout
    assert outputs(root) == reference
    assert any(".warc." in name for name in ledger_records(f"{root}/out"))
    assert urls.read_bytes(f"{root}/out/.dolma-sql/warc.added") == ADDED.encode()
    again = ok(cli(["-c", str(tmp_path / "warc.json"), "warc"], tmp_path))  # resumed from the ledger on S3
    assert "3 files already converted were kept" in again.stderr + again.stdout


def test_on_ray_with_s3(inputs, s3_server, ray_cluster):
    from dolma_sql.runtime.ray import RayExecutor

    reference = local_reference(inputs)
    root = remote_root(s3_server, inputs)
    with RayExecutor(ray_cluster.address) as executor:
        result = run(config_from(config(root), WarcConfig), executor=executor, quiet=True)
    assert result.counters["documents"] == 38 and result.counters["skipped_bad_digest"] == 1
    assert outputs(root) == reference
