"""``mix`` on the runtime: its output depends neither on the executor nor on the order shards finish in,
remote URLs run the same code as local paths, a run killed at any point resumes to the same output,
and the ledger redoes exactly the shards whose recipe changed."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import fsspec
import pytest
import yaml
from runtime_helpers import kill_at_random_points, no_temp_files, output_contents, run_cli, timed_run

from dolma_sql import mixer
from dolma_sql.config import config_from
from dolma_sql.config.mix import MixerConfig
from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.local import LocalExecutor

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu é ü 中文 😀".split()


def write_corpus(root: Path, *, files: int, documents: int, seed: int = 0) -> None:
    """``files`` gzipped document files with a line-aligned attribute set ``a`` (a score and PII spans)."""
    rng = random.Random(seed)
    for part in range(files):
        docs, attrs = [], []
        for index in range(documents):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 60)))
            doc_id = f"{part}-{index}"
            docs.append({"id": doc_id, "text": text, "source": "gen", "metadata": {"n": index}})
            pii = [[start, start + 5, rng.choice([0.2, 0.9])] for start in sorted(rng.sample(range(len(text)), min(2, len(text) // 8)))]
            attrs.append({"id": doc_id, "attributes": {"score": [[0, len(text), rng.random()]], "pii": pii}})
        for folder, records in (("documents", docs), ("attributes/a", attrs)):
            path = root / folder / f"part-{part:02d}.jsonl.gz"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(gzip.compress("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode(), mtime=0))


def recipe(documents: str, output: str, *, threshold: float = 0.2, **top) -> dict:
    return {
        "streams": [
            {
                "name": "s",
                "documents": [documents],
                "attributes": ["a"],
                "output": {"path": output, "max_size_in_bytes": 1, "min_text_length": 20},  # a shard per file
                "filter": {"exclude": [f"$.attributes[?(@.score[0][2] < {threshold})]"]},
                "span_replacement": [{"span": "$.attributes.pii", "min_score": 0.5, "replacement": "<{}>"}],
            }
        ],
        **top,
    }


def mixed(config: dict, executor=None) -> mixer.MixResult:
    return mixer.run(config_from(config, MixerConfig), executor=executor or SerialExecutor(), quiet=True)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    write_corpus(root, files=4, documents=60)
    return root


def test_the_output_does_not_depend_on_the_executor_or_the_order_of_shards(corpus, tmp_path):
    with LocalExecutor(2) as executor:
        mixed(recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / "local")), executor)
    expected = output_contents(tmp_path / "local")
    assert len(expected) == 4
    for seed in (1, 2, 3):
        mixed(recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / f"serial-{seed}")), SerialExecutor(shuffle=seed))
        assert output_contents(tmp_path / f"serial-{seed}") == expected


def memory_contents(folder: str) -> dict[str, bytes]:
    """``output_contents`` of a folder of the in-memory filesystem."""
    memory = fsspec.filesystem("memory")
    contents = {}
    for path in memory.find(folder):
        relative = path[len(folder) :].lstrip("/")
        if not relative.startswith(".dolma-sql/"):
            data = memory.cat_file(path)
            contents[relative] = gzip.decompress(data) if relative.endswith(".gz") else data
    return contents


def test_urls_of_the_memory_and_local_filesystems_mix_as_plain_paths(corpus, tmp_path):
    mixed(recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / "plain")))
    expected = output_contents(tmp_path / "plain")

    mixed(recipe(f"file://{corpus}/documents/*.jsonl.gz", f"file://{tmp_path}/file-url"))
    assert output_contents(tmp_path / "file-url") == expected

    memory = fsspec.filesystem("memory")
    for path in corpus.rglob("*.jsonl.gz"):
        memory.pipe_file(f"/mix-corpus/{path.relative_to(corpus)}", path.read_bytes())
    staging = tmp_path / "staging"
    try:
        result = mixed(recipe("memory://mix-corpus/documents/*.jsonl.gz", "memory://mix-output", work_dir={"output": str(staging)}))
        assert result.shards == 4 and memory_contents("/mix-output") == expected
        assert staging.is_dir() and not list(staging.iterdir()), "outputs are staged in work_dir.output, then uploaded"
    finally:
        memory.rm("/mix-corpus", recursive=True)
        memory.rm("/mix-output", recursive=True)


def test_a_rerun_skips_the_shards_of_the_same_recipe_and_redoes_them_when_it_changes(corpus, tmp_path):
    config = recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / "out"))
    first = mixed(config)
    before = output_contents(tmp_path / "out")
    assert "units_skipped" not in first.totals
    again = mixed(config)
    assert again.totals["units_skipped"] == 4 and "documents" not in again.totals
    assert output_contents(tmp_path / "out") == before

    changed = mixed(recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / "out"), threshold=0.6))
    assert "units_skipped" not in changed.totals
    assert changed.totals["documents_kept"] < first.totals["documents_kept"]
    assert output_contents(tmp_path / "out") != before
    allowing_missing = mixer.run(config_from(config, MixerConfig), executor=SerialExecutor(), allow_missing_attributes=True, quiet=True)
    assert "units_skipped" not in allowing_missing.totals, "allow_missing_attributes shapes the output too"


def test_a_rerun_with_fewer_shards_removes_the_earlier_runs_other_shards(corpus, tmp_path):
    """A recipe edited to make fewer shards: the stream's folder then holds this run's shards only, as a fresh run's."""
    documents = str(corpus / "documents" / "*.jsonl.gz")
    mixed(recipe(documents, str(tmp_path / "out")))
    (tmp_path / "out" / "notes.txt").write_text("not a shard")
    one_shard = recipe(documents, str(tmp_path / "out"))
    one_shard["streams"][0]["output"]["max_size_in_bytes"] = 10**9
    warnings: list[str] = []
    mixer.run(config_from(one_shard, MixerConfig), executor=SerialExecutor(), warn=warnings.append, quiet=True)
    fresh = recipe(documents, str(tmp_path / "fresh"))
    fresh["streams"][0]["output"]["max_size_in_bytes"] = 10**9
    mixed(fresh)
    assert output_contents(tmp_path / "out") == {**output_contents(tmp_path / "fresh"), "notes.txt": b"not a shard"}
    assert warnings == [f"removed 3 shards of stream 's' that an earlier run wrote and this recipe does not: {', '.join(str(tmp_path / 'out' / f's-000{i}.jsonl.gz') for i in (1, 2, 3))}"]
    assert [p.name.split(".mix.")[0] for p in (tmp_path / "out" / ".dolma-sql").glob("*.done")] == ["s-0000.jsonl.gz"]


def test_a_rerun_after_an_input_is_removed_or_retagged_equals_a_fresh_run(tmp_path):
    """Shard numbers shift when a file goes, and an attribute file may be rewritten: the records name their inputs'
    versions, so the rerun mixes again what changed instead of keeping shards of other documents."""
    import shutil

    write_corpus(tmp_path / "corpus", files=4, documents=30)
    mixed(recipe(str(tmp_path / "corpus" / "documents" / "*.jsonl.gz"), str(tmp_path / "out")))
    for folder in ("documents", "attributes/a"):
        (tmp_path / "corpus" / folder / "part-00.jsonl.gz").unlink()
    retagged = tmp_path / "corpus" / "attributes" / "a" / "part-02.jsonl.gz"
    records = [json.loads(line) for line in gzip.decompress(retagged.read_bytes()).splitlines()]
    for record in records:
        record["attributes"]["score"][0][2] = 1 - record["attributes"]["score"][0][2]  # what the filter keeps changes
    retagged.write_bytes(gzip.compress("".join(json.dumps(record) + "\n" for record in records).encode(), mtime=0))
    mixed(recipe(str(tmp_path / "corpus" / "documents" / "*.jsonl.gz"), str(tmp_path / "out")))
    shutil.copytree(tmp_path / "corpus", tmp_path / "again")
    mixed(recipe(str(tmp_path / "again" / "documents" / "*.jsonl.gz"), str(tmp_path / "fresh")))
    assert output_contents(tmp_path / "out") == output_contents(tmp_path / "fresh")


def test_editing_one_stream_redoes_the_shards_of_that_stream_only(corpus, tmp_path):
    def two_streams(threshold_of_b: float) -> dict:
        streams = []
        for name, threshold in (("a", 0.2), ("b", threshold_of_b)):
            stream = recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / name), threshold=threshold)["streams"][0]
            streams.append({**stream, "name": name})
        return {"streams": streams}

    mixed(two_streams(0.2))
    stream_a, stream_b = output_contents(tmp_path / "a"), output_contents(tmp_path / "b")
    edited = mixed(two_streams(0.6))
    assert edited.totals["units_skipped"] == 4, "stream a's four shards are kept"
    assert output_contents(tmp_path / "a") == stream_a
    assert output_contents(tmp_path / "b") != stream_b
    assert output_contents(tmp_path / "b") == output_contents(_mixed_alone(two_streams(0.6)["streams"][1], tmp_path / "alone"))


def _mixed_alone(stream: dict, output: Path) -> Path:
    mixed({"streams": [{**stream, "output": {**stream["output"], "path": str(output)}}]})
    return output


@pytest.mark.parametrize("kind", ["local", "serial"])
def test_the_cli_accepts_an_executor(corpus, tmp_path, kind):
    (tmp_path / "recipe.yaml").write_text(yaml.safe_dump(recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / kind), processes=2)))
    result = run_cli(["mix", "recipe.yaml", "--executor", kind], tmp_path)
    assert result.returncode == 0, result.stderr
    mixed(recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / "expected")))
    assert output_contents(tmp_path / kind) == output_contents(tmp_path / "expected")


def test_a_run_killed_at_random_points_resumes_to_the_output_of_an_uninterrupted_run(tmp_path):
    write_corpus(tmp_path / "corpus", files=10, documents=1500, seed=1)
    documents = str(tmp_path / "corpus" / "documents" / "*.jsonl.gz")
    (tmp_path / "clean.yaml").write_text(yaml.safe_dump(recipe(documents, "clean", processes=2)))
    (tmp_path / "killed.yaml").write_text(yaml.safe_dump(recipe(documents, "killed", processes=2)))
    clean_seconds = timed_run(["mix", "clean.yaml"], tmp_path)
    killed = kill_at_random_points(["mix", "killed.yaml"], tmp_path, kills=5, seed=11, clean_seconds=clean_seconds)
    assert killed >= 1, "the first run is killed once it has finished a unit"
    timed_run(["mix", "killed.yaml"], tmp_path)
    assert output_contents(tmp_path / "killed") == output_contents(tmp_path / "clean")
    assert len(output_contents(tmp_path / "clean")) == 10
    assert not no_temp_files(tmp_path / "killed")


@pytest.mark.parametrize("codec,suffix,magic", [(None, ".jsonl.gz", b"\x1f\x8b"), ("zst", ".jsonl.zst", b"\x28\xb5\x2f\xfd"), ("", ".jsonl", b"{")])
def test_unshuffled_outputs_mirror_their_inputs_named_for_their_codec(corpus, tmp_path, codec, suffix, magic):
    """``shuffle: false``: one output per input under ``documents/``, with the input's name, whose compression extension is
    ``compression.output``'s when it is set; each holds what the shuffled mix keeps of that file."""
    config = recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / "unshuffled"), shuffle=False)
    if codec is not None:
        config["streams"][0]["compression"] = {"output": codec}
    mixed(config)
    outputs = sorted((tmp_path / "unshuffled" / "documents").glob("part-*"))
    assert [path.name for path in outputs] == [f"part-{part:02d}{suffix}" for part in range(4)]
    assert all(path.read_bytes().startswith(magic) for path in outputs)
    mixed(recipe(str(corpus / "documents" / "*.jsonl.gz"), str(tmp_path / "shuffled")))
    shuffled = [json.loads(line) for name, data in sorted(output_contents(tmp_path / "shuffled").items()) for line in data.splitlines()]
    unshuffled = [json.loads(line) for path in outputs for line in decompressed(path).splitlines()]
    assert unshuffled == shuffled


def decompressed(path: Path) -> bytes:
    from dolma_sql.storage.codecs import codec_of, decompressed_reader

    with open(path, "rb") as raw:
        return decompressed_reader(raw, codec_of(str(path))).read()


def test_a_replacement_starting_with_an_escaped_dollar_is_that_text(tmp_path):
    """``\\$`` at the start is a literal ``$`` (a leading ``$`` alone starts a jq expression)."""
    for folder, record in (("documents", {"id": "1", "text": "Hello world", "metadata": {"x": "X"}}), ("attributes/sp", {"id": "1", "attributes": {"s": [[0, 5, 1.0]]}})):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "a.jsonl.gz").write_bytes(gzip.compress(json.dumps(record).encode() + b"\n"))
    for replacement, expected in (("\\$5", "$5 world"), ("$.metadata.x", "X world"), ("a\\$", "a\\$ world")):
        stream = {"name": "s", "documents": [str(tmp_path / "documents" / "*.jsonl.gz")], "attributes": ["sp"], "output": {"path": str(tmp_path / "out")},
                  "span_replacement": [{"span": "$.attributes.s", "min_score": 0.5, "replacement": replacement}]}
        mixed({"streams": [stream]})
        assert [json.loads(line)["text"] for line in output_contents(tmp_path / "out")["s-0000.jsonl.gz"].splitlines()] == [expected]
