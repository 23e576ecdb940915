"""A dolma user's first day (issue 18): what the commands do besides their main job, tried as a new
user tries them: worker counts, tokens options, the demo's next steps, output at 80 columns, profiling."""

from __future__ import annotations

import gzip
import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import run_oracle
from executor_helpers import square
from runtime_helpers import run_cli

from dolma_sql.runtime import run_units
from dolma_sql.runtime.local import LocalExecutor


def write_documents(path: Path, texts: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps({"id": str(i), "text": text, "source": "t"}) + "\n" for i, text in enumerate(texts))
    path.write_bytes(gzip.compress(lines.encode(), mtime=0))
    return path


# item 4: no more workers than units


@pytest.mark.parametrize("allocator", ["system", "c"], ids=["caller-works", "allocator-preloaded"])
def test_a_pool_starts_no_more_workers_than_units(allocator):
    """8 processes for 3 units: at most 3 run them (the caller is one of them unless an allocator is preloaded)."""
    with LocalExecutor(8, allocator=allocator) as executor:
        result = run_units(square, [1, 2, 3], executor=executor, label="test", quiet=True)
        assert result["units"] == 3
        assert executor.workers_started <= (2 if executor.caller_works else 3)
        run_units(square, list(range(20)), executor=executor, label="test", quiet=True)  # a later, larger map gets more
        assert 1 <= executor.workers_started <= (7 if executor.caller_works else 8)


def test_a_one_shard_mix_with_8_processes_starts_one_process_at_most_and_says_so(tmp_path):
    documents = write_documents(tmp_path / "documents" / "only.jsonl.gz", ["a document long enough", "another one"])
    recipe = {"streams": [{"name": "one", "documents": [str(documents)], "output": {"path": str(tmp_path / "out")}}], "processes": 8}
    from dolma_sql import mix

    with LocalExecutor(8) as executor:
        mix(recipe, executor=executor)
        assert executor.workers_started <= (0 if executor.caller_works else 1)
    recipe["streams"][0]["output"]["path"] = str(tmp_path / "cli")
    (tmp_path / "recipe.json").write_text(json.dumps(recipe))
    result = run_cli(["mix", str(tmp_path / "recipe.json"), "--processes", "8"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 unit of work for --processes 8: running it in 1 process, not 8" in result.stderr


# item 6: tokens options as upstream takes them


def tokens_by_document(destination: Path) -> dict[tuple[str, int], list[int]]:
    from dolma_sql.tokenizer import iter_documents

    return {(Path(doc.src).name, doc.loc): doc.tokens.tolist() for doc in iter_documents(str(destination))}


def tokens_cli(args: list[str], cwd: Path):
    return run_cli(["tokens", "--documents", PROVIDED, "--processes", "1", *args], cwd=cwd)


PROVIDED = "tests/data/provided/documents/000.json.gz"
GPT_NEO_FILE = "tests/data/tokenizer/gpt-neo-test-tokenizer.json"


@pytest.mark.oracle
@pytest.mark.parametrize("ids", [["--tokenizer.eos_token_id", "50279"], ["--tokenizer.bos_token_id", "50279"], []], ids=["eos", "bos", "neither"])
def test_bos_and_eos_as_upstream(conformance, oracle, tmp_path, ids):
    """One of them is enough for both; with neither both refuse (dolma 1.2.1 raises ValueError in its workers)."""
    args = ["--tokenizer.name_or_path", GPT_NEO_FILE, *ids]
    upstream = subprocess.run([str(oracle), "tokens", "--documents", PROVIDED, *args, "--destination", str(tmp_path / "up")], cwd=conformance, capture_output=True, text=True)
    ours = tokens_cli([*args, "--destination", str(tmp_path / "ours")], conformance)
    if not ids:
        assert upstream.returncode != 0 and "Neither eos_token_id nor bos_token_id" in upstream.stderr
        assert ours.returncode == 1 and "neither tokenizer.eos_token_id nor tokenizer.bos_token_id" in ours.stderr
        assert "Traceback" not in ours.stderr
        return
    assert upstream.returncode == 0, upstream.stderr[-3000:]
    assert ours.returncode == 0, ours.stderr
    assert tokens_by_document(tmp_path / "ours") == tokens_by_document(tmp_path / "up")
    assert ("no tokenizer.eos_token_id" in ours.stderr) == ("bos" in ids[0])


@pytest.mark.oracle
def test_a_wider_dtype_than_the_vocabulary_needs_is_taken_with_a_warning(conformance, oracle, tmp_path):
    """dolma 1.2.1 refuses --dtype uint32 for a 50,280-id vocabulary; dolma-sql writes the same ids in 4 bytes each."""
    args = ["--tokenizer.name_or_path", GPT_NEO_FILE, "--tokenizer.eos_token_id", "50279"]
    run_oracle(oracle, ["tokens", "--documents", PROVIDED, *args, "--destination", str(tmp_path / "up")], cwd=conformance)
    refused = subprocess.run([str(oracle), "tokens", "--documents", PROVIDED, *args, "--dtype", "uint32", "--destination", str(tmp_path / "up32")], cwd=conformance, capture_output=True, text=True)
    assert refused.returncode != 0 and "Numpy type mismatch" in refused.stderr
    ours = tokens_cli([*args, "--dtype", "uint32", "--destination", str(tmp_path / "ours")], conformance)
    assert ours.returncode == 0, ours.stderr
    assert "dtype uint32 is wider than the vocabulary of 50,280 ids needs" in " ".join(ours.stderr.split())
    assert tokens_by_document(tmp_path / "ours") == tokens_by_document(tmp_path / "up")
    npy = tmp_path / "ours" / "part-0-00000.npy"
    assert npy.stat().st_size == 2 * (tmp_path / "up" / "part-0-00000.npy").stat().st_size


def test_a_dtype_the_vocabulary_does_not_fit_in_is_refused(conformance, tmp_path):
    for dtype, message in (("uint8", "too small for the tokenizer: its vocabulary of 50,280 ids needs uint16"), ("int32", "not an unsigned integer dtype")):
        result = tokens_cli(["--tokenizer.name_or_path", GPT_NEO_FILE, "--tokenizer.eos_token_id", "50279", "--dtype", dtype, "--destination", str(tmp_path / dtype)], conformance)
        assert result.returncode == 1 and message in " ".join(result.stderr.split()), result.stderr


# item 9: the demo's next steps run from any folder


def test_the_demos_next_commands_run_from_any_folder(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    demo = run_cli(["demo", "demo"], cwd=tmp_path, env={**os.environ, "COLUMNS": "80"})  # a relative folder, as a user types it
    assert demo.returncode == 0, demo.stderr
    commands = [shlex.split(line.strip()) for line in demo.stdout.splitlines() if line.startswith("  dolma-sql ")]
    assert [command[1] for command in commands] == ["mix", "mix", "sql"], demo.stdout
    recipe = (tmp_path / "demo" / "recipe.yaml").read_text()
    assert str(tmp_path / "demo" / "documents") in recipe and str(tmp_path / "demo" / "output") in recipe
    for cwd in (tmp_path, tmp_path / "elsewhere"):
        explain, dry_run, sql = (run_cli(command[1:], cwd=cwd) for command in commands)
        for result in (explain, dry_run, sql):
            assert result.returncode == 0, result.stderr
        assert "SELECT" in explain.stdout
        assert "kept" in dry_run.stdout and "359" in dry_run.stdout
        assert "400" in sql.stdout


# item 10: nothing the user reads is cut at 80 columns


def test_a_dry_run_at_80_columns_shows_every_rule_and_path_in_full(tmp_path):
    documents = write_documents(tmp_path / "a-rather-long-folder-name-for-the-corpus" / "documents" / "part-0.jsonl.gz", ["short", "a longer document " * 5])
    attributes = tmp_path / "a-rather-long-folder-name-for-the-corpus" / "attributes" / "quality" / "part-0.jsonl.gz"
    attributes.parent.mkdir(parents=True)
    rows = [{"id": "0", "attributes": {"quality__words": [[0, 5, 1.0]]}}, {"id": "1", "attributes": {"quality__words": [[0, 90, 15.0]]}}]
    attributes.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode()))
    include = "$.attributes[?(@.quality__words && @.quality__words[0] && @.quality__words[0][2] >= 10)]"
    exclude = "$.attributes[?(@.quality__words && @.quality__words[0] && @.quality__words[0][2] > 100000)]"
    output = tmp_path / "an-output-folder-whose-path-is-longer-than-eighty-columns-together-with-its-parents"
    recipe = {
        "streams": [
            {
                "name": "s",
                "documents": [str(documents)],
                "attributes": ["quality"],
                "output": {"path": str(output)},
                "filter": {"include": [include], "exclude": [exclude]},
                "span_replacement": [{"span": "$.attributes.quality__words", "min_score": 100, "replacement": ""}],
            }
        ]
    }
    (tmp_path / "recipe.json").write_text(json.dumps(recipe))
    narrow = {**os.environ, "COLUMNS": "80"}
    dry_run = run_cli(["mix", str(tmp_path / "recipe.json"), "--dry-run"], cwd=tmp_path, env=narrow)
    assert dry_run.returncode == 0, dry_run.stderr
    assert max(len(line) for line in dry_run.stdout.splitlines() if "┃" in line or "│" in line) <= 80
    for name, expression in (("include_0", include), ("exclude_0", exclude), ("span_replacement[0]", "$.attributes.quality__words")):
        assert f"{name}: {expression}" in dry_run.stdout
    mixed = run_cli(["mix", str(tmp_path / "recipe.json")], cwd=tmp_path, env=narrow)
    assert mixed.returncode == 0, mixed.stderr
    assert f"s: {output}" in mixed.stderr


# item 11: tag --profile.*


def test_tag_profile_writes_the_costliest_functions_to_its_output(tmp_path):
    write_documents(tmp_path / "corpus" / "documents" / "a.jsonl.gz", ["one two three", "four five"])
    write_documents(tmp_path / "corpus" / "documents" / "b.jsonl.gz", ["six seven", "eight"])
    profile = tmp_path / "prof.txt"
    args = ["tag", "--documents", str(tmp_path / "corpus" / "documents" / "*.jsonl.gz"), "--taggers", "char_length_v1", "--processes", "2"]
    result = run_cli([*args, "--profile.enable", "--profile.output", str(profile), "--profile.sort_key", "cumulative", "--profile.lines", "25"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = profile.read_text()
    assert "function calls" in text and "Ordered by: cumulative time" in text
    assert "due to restriction <25>" in text and "tag_file" in text  # the units ran in the profiled process
    assert len(list((tmp_path / "corpus" / "attributes" / "char_length_v1").glob("*.jsonl.gz"))) == 2
    printed = run_cli([*args, "--profile.enable", "--profile.lines", "3", "--ignore_existing"], cwd=tmp_path)
    assert printed.returncode == 0 and "Ordered by: internal time" in printed.stdout  # no output: standard output, as dolma's help says
    wrong = run_cli([*args, "--profile.enable", "--profile.sort_key", "speed"], cwd=tmp_path)
    assert wrong.returncode == 1 and "profile.sort_key" in wrong.stderr and "cumulative" in wrong.stderr
    (tmp_path / "file").write_text("not a folder")
    unwritable = run_cli([*args, "--profile.enable", "--profile.output", str(tmp_path / "file" / "prof.txt"), "--experiment", "late"], cwd=tmp_path)
    assert unwritable.returncode == 1 and unwritable.stderr.startswith("error: profile.output:") and "not writable" in unwritable.stderr
    assert not (tmp_path / "corpus" / "attributes" / "late").exists()  # checked before any file was tagged
