"""Every command on object storage: the same config run once over local files and once over the same
corpus on the SeaweedFS S3 server (documents, attributes, outputs, Bloom filter, tokenizer, reports,
lineage and ledger all at ``s3://`` URLs), both on the local executor, write the same bytes (decompressed)."""

from __future__ import annotations

import io
import json
import shutil
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from s3_helpers import cli, files_under, ledger_records, ok, rooted, tree, write_corpus

from conftest import CONFORMANCE

TOKENIZER = CONFORMANCE / "tests" / "data" / "tokenizer" / "gpt-neo-test-tokenizer.json"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = write_corpus(tmp_path_factory.mktemp("s3-commands") / "corpus")
    shutil.copy(TOKENIZER, root / "tokenizer.json")
    return root


@pytest.fixture()
def roots(corpus, s3_server, tmp_path) -> tuple[str, str]:
    """The corpus in a local folder and under a fresh ``s3://`` prefix."""
    local = tmp_path / "local"
    shutil.copytree(corpus, local)
    remote = f"s3://{s3_server.new_bucket()}/corpus-{uuid.uuid4().hex[:6]}"
    s3_server.upload(corpus, remote)
    return str(local), remote


def run_both(command: list[str], config: dict, roots: tuple[str, str], tmp_path: Path, *, remote_config: dict | None = None) -> None:
    """Run ``dolma-sql -c CONFIG COMMAND`` with ``ROOT`` in the config and the command standing for each root, on the local executor."""
    for name, root, chosen in (("local", roots[0], config), ("s3", roots[1], remote_config or config)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(rooted({**chosen, "processes": 2}, root)))
        ok(cli(["-c", str(path), *rooted(command, root)], tmp_path))


def same_outputs(roots: tuple[str, str], under: str = "", normalize=lambda name, data, root: data) -> dict[str, bytes]:
    """The outputs under both roots (paths inside them made relative to the root), asserted equal; returns them."""
    local, remote = ({name: normalize(name, data, root) for name, data in tree(root, under=under).items()} for root in roots)
    assert local, f"no outputs under {under!r}"
    assert sorted(remote) == sorted(local)
    for name in local:
        assert remote[name] == local[name], name
    return local


def assert_ledger_on_s3(remote_root: str, command: str) -> None:
    records = ledger_records(remote_root)
    assert any(f".{command}." in name for name in records), f"no {command} ledger record under {remote_root}: {records}"


MIX = {
    "streams": [
        {
            "name": "s",
            "documents": ["ROOT/documents/*.jsonl.gz"],
            "attributes": ["a"],
            "output": {"path": "ROOT/mixed", "max_size_in_bytes": 150_000, "min_text_length": 20},
            "filter": {"exclude": ["$.attributes[?(@.score[0][2] < 0.2)]"]},
            "span_replacement": [{"span": "$.attributes.pii", "min_score": 0.5, "replacement": "<{}>"}],
        }
    ]
}


@pytest.mark.parametrize("inputs", ["streamed", "staged"])
def test_mix(roots, tmp_path, inputs):
    """Streamed, or staged through ``work_dir.input`` (downloaded, then removed) with outputs staged in ``work_dir.output``."""
    staged = {**MIX, "work_dir": {"input": str(tmp_path / "work-in"), "output": str(tmp_path / "work-out")}}
    run_both(["mix"], MIX, roots, tmp_path, remote_config=staged if inputs == "staged" else None)
    outputs = same_outputs(roots, "mixed/")
    assert len(outputs) >= 2, "several shards"
    assert_ledger_on_s3(roots[1], "mix")
    if inputs == "staged":
        assert not list((tmp_path / "work-in").iterdir()) and not list((tmp_path / "work-out").iterdir()), "staged copies are removed"


def test_mix_dry_run(roots, tmp_path):
    run_both(["mix", "--dry-run", "--report", "ROOT/dry-run.json"], MIX, roots, tmp_path)
    report = same_outputs(roots, "dry-run.json")
    assert json.loads(report["dry-run.json"])["streams"][0]["in"]["documents"] == 300
    assert "mixed/" not in "".join(files_under(roots[1])), "a dry run writes no corpus"


def test_tag(roots, tmp_path):
    config = {"documents": ["ROOT/documents/*.jsonl.gz"], "taggers": ["gopher_v1", "c4_v2", "char_length_v1", "random_number_v1"], "experiment": "t", "seed": 3}
    run_both(["tag"], config, roots, tmp_path)
    assert len(same_outputs(roots, "attributes/t/")) == 3
    assert_ledger_on_s3(roots[1], "tag")


def lineage_relative(name: str, data: bytes, root: str) -> bytes:
    """A lineage table with its document URLs made relative to the root; a report without its time and lineage URL."""
    if name.endswith(".parquet"):
        rows = pq.read_table(io.BytesIO(data)).to_pylist()
        return json.dumps([{key: str(value).replace(root, "ROOT") for key, value in row.items()} for row in rows]).encode()
    if name.endswith("report.json"):
        return json.dumps({key: value for key, value in json.loads(data).items() if key not in ("seconds", "lineage")}).encode()
    return data


@pytest.mark.parametrize("mode", ["bloom", "exact"])
def test_dedupe(roots, tmp_path, mode):
    config = {
        "documents": ["ROOT/documents/*.jsonl.gz"],
        "dedupe": {"name": "dd", "mode": mode, "paragraphs": {"attribute_name": "dup"}, "skip_empty": True},
        "bloom_filter": {"file": "ROOT/filter.bin", "read_only": False, "estimated_doc_count": 100_000, "desired_false_positive_rate": 1e-9},
        "report": "ROOT/dedupe-report.json",
    }
    run_both(["dedupe"], config, roots, tmp_path)
    outputs = same_outputs(roots, normalize=lineage_relative)
    assert "attributes/dd/part-0002.jsonl.gz" in outputs and "dedupe-report.json" in outputs
    assert ("filter.bin" in outputs) == (mode == "bloom") and ("attributes/dd/lineage.parquet" in outputs) == (mode == "exact")
    assert b"1.0" in outputs["attributes/dd/part-0000.jsonl.gz"] or b",1]" in outputs["attributes/dd/part-0000.jsonl.gz"], "the corpus has duplicates"
    assert_ledger_on_s3(roots[1], "dedupe" if mode == "bloom" else "dedupe-run")  # each file's record, or the run's
    ok(cli(["-c", str(tmp_path / "s3.yaml"), "dedupe"], tmp_path))
    again = json.loads(tree(roots[1])["dedupe-report.json"])
    assert (again["files"], again["skipped_files"]) == (0, 3), "a rerun keeps every output"


def index_relative(name: str, data: bytes, root: str) -> bytes:
    """A tokens index with its source URLs made relative to the root."""
    return data.replace(root.encode(), b"ROOT") if name.endswith(".csv.gz") else data


TOKENS = {
    "documents": ["ROOT/documents/*.jsonl.gz"],
    "destination": "ROOT/tokens",
    "tokenizer": {"name_or_path": "ROOT/tokenizer.json", "eos_token_id": 50279, "pad_token_id": 1},
    "files_per_process": 1,
    "batch_size": 50,
    "max_size": 40_000,
}


def test_tokens(roots, tmp_path):
    run_both(["tokens"], TOKENS, roots, tmp_path)
    outputs = same_outputs(roots, "tokens/", normalize=index_relative)
    assert len([name for name in outputs if name.endswith(".npy")]) >= 3
    assert_ledger_on_s3(roots[1], "tokens")


def test_stat(roots, tmp_path):
    config = {"attributes": ["ROOT/attributes/a"], "report": "ROOT/stat", "work_dir": {"output": "ROOT/stat-work"}, "bins": 50}
    run_both(["stat"], config, roots, tmp_path)
    assert list(same_outputs(roots, "stat/")) == ["stat/summaries.jsonl.gz"]
    assert_ledger_on_s3(roots[1], "stat")
