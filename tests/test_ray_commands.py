"""Every command on the Ray executor writes what it writes on the local executor (decompressed bytes): mix
and its dry run, tag, dedupe (Bloom and exact), tokens (in its deterministic order) and stat over local
files; mix and tag over object storage too, from the command line, with the cluster named by
``RAY_ADDRESS`` or by the config's ``executor`` section."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from s3_helpers import cli, ok, rooted, tree, write_corpus
from test_s3_commands import MIX, TOKENIZER, TOKENS, index_relative, lineage_relative

import dolma_sql
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.runtime.ray import RayExecutor

TAG = {"documents": ["ROOT/documents/*.jsonl.gz"], "taggers": ["gopher_v1", "c4_v2", "char_length_v1", "random_number_v1"], "experiment": "t", "seed": 3}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = write_corpus(tmp_path_factory.mktemp("ray-commands") / "corpus")
    shutil.copy(TOKENIZER, root / "tokenizer.json")
    return root


@pytest.fixture(scope="module")
def ray_executor(ray_cluster) -> Iterator[RayExecutor]:
    with RayExecutor(ray_cluster.address) as executor:
        yield executor


def local_and_ray(corpus: Path, tmp_path: Path, ray_executor: RayExecutor, run: Callable[[str, object], object], *, under: str = "", normalize=None):
    """``run(root, executor)`` on a copy of the corpus with the local executor and on another with Ray: the
    outputs under ``under`` of each, paths inside them relative to their root, asserted equal; returns them."""
    outputs = []
    for name, executor in (("local", LocalExecutor(1)), ("ray", ray_executor)):
        root = str(tmp_path / name)
        shutil.copytree(corpus, root)
        run(root, executor)
        outputs.append({path: (normalize(path, data, root) if normalize else data) for path, data in tree(root, under=under).items()})
    local, on_ray = outputs
    assert local, f"no outputs under {under!r}"
    assert sorted(on_ray) == sorted(local)
    for path in local:
        assert on_ray[path] == local[path], path
    return local


def test_mix(corpus, tmp_path, ray_executor):
    outputs = local_and_ray(corpus, tmp_path, ray_executor, lambda root, executor: dolma_sql.mix(rooted(MIX, root), executor=executor), under="mixed/")
    assert len(outputs) >= 2, "several shards"


def test_mix_dry_run(corpus, tmp_path, ray_executor):
    reports = [dolma_sql.mix(rooted(MIX, str(corpus)), executor=executor, dry_run=True) for executor in (LocalExecutor(1), ray_executor)]
    assert reports[0] == reports[1] and reports[0]["streams"][0]["in"]["documents"] == 300


def test_tag(corpus, tmp_path, ray_executor):
    outputs = local_and_ray(corpus, tmp_path, ray_executor, lambda root, executor: dolma_sql.tag(rooted(TAG, root), executor=executor), under="attributes/t/")
    assert len(outputs) == 3


@pytest.mark.parametrize("mode", ["bloom", "exact"])
def test_dedupe_with_relative_paths(corpus, tmp_path, ray_executor, monkeypatch, mode):
    """Relative paths mean on the workers what they mean to the driver (its working folder)."""
    config = {
        "documents": ["documents/*.jsonl.gz"],
        "dedupe": {"name": "dd", "mode": mode, "paragraphs": {"attribute_name": "dup"}, "skip_empty": True},
        "bloom_filter": {"file": "filter.bin", "read_only": False, "estimated_doc_count": 100_000, "desired_false_positive_rate": 1e-9},
    }

    def dedupe(root: str, executor) -> None:
        monkeypatch.chdir(root)
        dolma_sql.dedupe(config, executor=executor)

    outputs = local_and_ray(corpus, tmp_path, ray_executor, dedupe, normalize=lineage_relative)
    assert "attributes/dd/part-0002.jsonl.gz" in outputs
    assert ("filter.bin" in outputs) == (mode == "bloom") and ("attributes/dd/lineage.parquet" in outputs) == (mode == "exact")


def test_tokens_in_their_deterministic_order(corpus, tmp_path, ray_executor):
    outputs = local_and_ray(corpus, tmp_path, ray_executor, lambda root, executor: dolma_sql.tokens(rooted(TOKENS, root), executor=executor), under="tokens/", normalize=index_relative)
    assert len([name for name in outputs if name.endswith(".npy")]) >= 3


def test_stat(corpus, tmp_path, ray_executor):
    config = {"attributes": ["ROOT/attributes/a"], "report": "ROOT/stat", "bins": 50}
    outputs = local_and_ray(corpus, tmp_path, ray_executor, lambda root, executor: dolma_sql.stat(rooted(config, root), executor=executor), under="stat/")
    assert list(outputs) == ["stat/summaries.jsonl.gz"]


@pytest.fixture()
def on_s3(corpus, s3_server) -> str:
    remote = f"s3://{s3_server.new_bucket()}/corpus-{uuid.uuid4().hex[:6]}"
    s3_server.upload(corpus, remote)
    return remote


def test_mix_on_object_storage_from_the_command_line_with_RAY_ADDRESS(corpus, on_s3, tmp_path, ray_cluster):
    local = tmp_path / "local"
    shutil.copytree(corpus, local)
    dolma_sql.mix(rooted(MIX, str(local)), executor=LocalExecutor(1))
    (tmp_path / "recipe.yaml").write_text(yaml.safe_dump(rooted(MIX, on_s3)))
    ok(cli(["mix", "recipe.yaml", "--executor", "ray"], tmp_path, env={"RAY_ADDRESS": ray_cluster.address}))
    assert tree(on_s3, under="mixed/") == tree(str(local), under="mixed/")


def test_tag_on_object_storage_from_the_command_line_with_the_config_executor(corpus, on_s3, tmp_path, ray_cluster):
    local = tmp_path / "local"
    shutil.copytree(corpus, local)
    dolma_sql.tag(rooted(TAG, str(local)), executor=LocalExecutor(1))
    config = {**rooted(TAG, on_s3), "executor": {"kind": "ray", "address": ray_cluster.address}}
    (tmp_path / "tag.yaml").write_text(yaml.safe_dump(config))
    ok(cli(["-c", "tag.yaml", "tag"], tmp_path, env={"RAY_ADDRESS": None}))
    assert tree(on_s3, under="attributes/t/") == tree(str(local), under="attributes/t/")
