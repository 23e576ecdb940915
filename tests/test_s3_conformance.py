"""Upstream's conformance data on the S3 server: its mixer and dedupe configs, with every ``tests/…`` path
pointed at the same files under an ``s3://`` prefix (``work_dir`` stays local: it is where inputs and
outputs are staged), write what the unchanged configs write locally; tag, tokens and stat over the
conformance files on S3 write what they write over the local copies."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import fsspec
import pytest
import yaml
from s3_helpers import cli, ledger_records, ok, tree

from conftest import CONFORMANCE
from mixhelpers import read_jsonl, read_outputs, strip_provenance

MIX_OUTPUTS = {
    "mixer.json": ("tests/work/output/mixer", "mixer.json.gz"),
    "email-spans.json": ("tests/work/output/email-spans", "email-spans.json.gz"),
    "email-spans-jq.yaml": ("tests/work/output/email-spans-jq", "email-spans-jq.json.gz"),
    "filter-by-spans.json": ("tests/work/output/filter-by-spans", "filter-by-spans.json.gz"),
    "paragraph-spans.json": ("tests/work/output/paragraph-spans", "remove-paragraphs.json.gz"),
}
DEDUPE_OUTPUTS = {
    "dedupe-by-url.json": "tests/data/provided/deduper/attributes/dedupe_by_url",
    "dedupe-paragraphs.json": "tests/data/provided/deduper/attributes/dedupe_paragraphs",
    "dedupe-paragraph-ngrams.json": "tests/data/provided/deduper/attributes/dedupe_paragraph_ngrams",
}


@pytest.fixture(scope="module")
def s3_base(s3_server) -> str:
    """The conformance folder's ``tests/data`` under a fresh prefix of the S3 server."""
    base = f"s3://{s3_server.new_bucket()}/conformance-{uuid.uuid4().hex[:6]}"
    s3_server.upload(CONFORMANCE / "tests" / "data", f"{base}/tests/data")
    return base


def on_s3(value, base: str, key: str = ""):
    """A dolma config with every ``tests/…`` path moved under ``base``, except ``work_dir``'s local staging folders."""
    if isinstance(value, dict):
        return {name: item if name == "work_dir" else on_s3(item, base, name) for name, item in value.items()}
    if isinstance(value, list):
        return [on_s3(item, base, key) for item in value]
    return f"{base}/{value}" if isinstance(value, str) and value.startswith("tests/") else value


def write_s3_config(conformance: Path, name: str, base: str) -> str:
    source = conformance / "tests" / "config" / name
    config = yaml.safe_load(source.read_text())
    target = conformance / "tests" / "config" / f"s3-{Path(name).stem}.yaml"
    target.write_text(yaml.safe_dump(on_s3(config, base)))
    return str(target.relative_to(conformance))


@pytest.mark.parametrize("config", sorted(MIX_OUTPUTS))
def test_mixer_configs(conformance, s3_base, config):
    output, expected = MIX_OUTPUTS[config]
    ok(cli(["-c", f"tests/config/{config}", "mix"], conformance))
    ok(cli(["-c", write_s3_config(conformance, config, s3_base), "mix"], conformance))
    local, remote = tree(str(conformance / output)), tree(f"{s3_base}/{output}")
    assert local and remote == local
    assert [strip_provenance(json.loads(line)) for data in remote.values() for line in data.splitlines()] == read_outputs(str(conformance / output))
    assert read_outputs(str(conformance / output)) == read_jsonl(str(conformance / "tests/data/expected" / expected))
    assert any(".mix." in name for name in ledger_records(f"{s3_base}/{output}"))


def test_mixer_dry_run(conformance, s3_base, tmp_path):
    ok(cli(["-c", "tests/config/mixer.json", "mix", "--dry-run", "--report", str(tmp_path / "local.json")], conformance))
    ok(cli(["-c", write_s3_config(conformance, "mixer.json", s3_base), "mix", "--dry-run", "--report", f"{s3_base}/dry-run.json"], conformance))
    with fsspec.open(f"{s3_base}/dry-run.json", "rb") as handle:
        report = handle.read()
    assert report == (tmp_path / "local.json").read_bytes() and json.loads(report)["streams"][0]["in"]["documents"] > 0


@pytest.mark.parametrize("config", sorted(DEDUPE_OUTPUTS))
def test_dedupe_configs(conformance, s3_server, config):
    """Each on a prefix of its own: two of the configs share a Bloom filter file, which a second run would grow."""
    attributes = DEDUPE_OUTPUTS[config]
    s3_base = f"s3://{s3_server.new_bucket()}/conformance"
    s3_server.upload(CONFORMANCE / "tests" / "data" / "provided" / "deduper", f"{s3_base}/tests/data/provided/deduper")
    ok(cli(["-c", f"tests/config/{config}", "dedupe"], conformance))
    ok(cli(["-c", write_s3_config(conformance, config, s3_base), "dedupe"], conformance))
    local, remote = tree(str(conformance / attributes)), tree(f"{s3_base}/{attributes}")
    assert list(local) == ["000.json.gz"] and remote == local
    filter_file = json.loads((conformance / "tests" / "config" / config).read_text())["bloom_filter"]["file"]
    assert tree(f"{s3_base}/{filter_file}") == tree(str(conformance / filter_file)) != {}


def test_tag(conformance, s3_base, tmp_path):
    args = ["tag", "--taggers", "gopher_v1", "c4_v1", "pii_regex_v2", "char_length_with_paragraphs_v1", "--experiment", "t", "--processes", "2"]
    ok(cli([*args, "--documents", "tests/data/provided/documents/*.gz"], conformance))
    ok(cli([*args, "--documents", f"{s3_base}/tests/data/provided/documents/*.gz"], tmp_path))
    local, remote = tree(str(conformance / "tests/data/provided/attributes/t")), tree(f"{s3_base}/tests/data/provided/attributes/t")
    assert list(local) == ["000.json.gz"] and remote == local


def test_tokens(conformance, s3_base, tmp_path):
    def tokens(root: str, destination: str, cwd: Path) -> None:
        ok(cli(["tokens", "--documents", f"{root}/tests/data/provided/documents/*.gz", f"{root}/tests/data/multiple_files/*.gz",
                "--tokenizer.name_or_path", f"{root}/tests/data/tokenizer/llama-test-tokenizer.json", "--tokenizer.bos_token_id", "1",
                "--tokenizer.eos_token_id", "2", "--destination", destination, "--processes", "2"], cwd))  # fmt: skip

    tokens(str(conformance), str(tmp_path / "local"), conformance)
    tokens(s3_base, f"{s3_base}/tokens", tmp_path)
    local = {name: data.replace(str(conformance).encode(), b"ROOT") for name, data in tree(str(tmp_path / "local")).items()}
    remote = {name: data.replace(s3_base.encode(), b"ROOT") for name, data in tree(f"{s3_base}/tokens").items()}
    assert sorted(local) == ["part-0-00000.csv.gz", "part-0-00000.npy", "part-1-00000.csv.gz", "part-1-00000.npy"] and remote == local


def test_stat(conformance, s3_base, tmp_path):
    for root, report in ((str(conformance), str(tmp_path / "local")), (s3_base, f"{s3_base}/stat")):
        sets = [f"{root}/tests/data/provided/attributes/sample", f"{root}/tests/data/provided/attributes/duplicate_paragraphs/*.gz"]  # a folder, a glob
        ok(cli(["stat", "--attributes", *sets, "--report", report, "--processes", "2"], tmp_path))
    assert tree(f"{s3_base}/stat") == tree(str(tmp_path / "local")) != {}
