"""Hostile and unlucky input (issue 17): deeply nested documents (item 7), unwritable destinations
(item 8) and NaN or Infinity in attribute spans (item 9). Each fails with one error naming the file
and line (or the config path) and what is wrong, or works as the other commands do; never a traceback."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest
import yaml
from runtime_helpers import run_cli

from conftest import CONFORMANCE
from dolma_sql import mixer
from dolma_sql.config import config_from
from dolma_sql.config.mix import MixerConfig
from dolma_sql.errors import InputError
from dolma_sql.formats.nesting import DEEPEST, on_deep_stack
from dolma_sql.runtime import SerialExecutor

TOKENIZER = ["--tokenizer.name_or_path", str(CONFORMANCE / "tests" / "data" / "tokenizer" / "gpt-neo-test-tokenizer.json"),
             "--tokenizer.eos_token_id", "50279", "--tokenizer.pad_token_id", "1"]  # fmt: skip


def write_jsonl_gz(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress("".join(line + "\n" for line in lines).encode(), mtime=0))


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def ok(args: list[str], cwd: Path) -> str:
    result = run_cli(args, cwd)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    return result.stdout + result.stderr


# item 7: deep nesting


def deep_corpus(root: Path, depth: int) -> None:
    """Three documents, the second with ``depth`` nested arrays in its metadata and in its attribute line."""
    docs = ['{"id":"0","text":"plain text","source":"t"}',
            '{"id":"1","text":"deep text","source":"t","metadata":{"x":' + nested(depth) + "}}",
            '{"id":"2","text":"after it","source":"t"}']  # fmt: skip
    attributes = ['{"id":"0","attributes":{"score":[[0,5,1.0]]}}',
                  '{"id":"1","attributes":{"score":[[0,4,1.0]],"deep":' + nested(depth) + "}}",
                  '{"id":"2","attributes":{"score":[[0,5,0.2]]}}']  # fmt: skip
    write_jsonl_gz(root / "documents" / "part-0.jsonl.gz", docs)
    write_jsonl_gz(root / "attributes" / "a" / "part-0.jsonl.gz", attributes)
    recipe = {"streams": [{"name": "s", "documents": ["documents/*.gz"], "attributes": ["a"], "output": {"path": "mixed"},
                           "filter": {"include": ["$.attributes[?(@.score[0][2] > 0.5)]"]},
                           "span_replacement": [{"span": "$.attributes.score", "min_score": 0.5, "replacement": "X"}]}]}  # fmt: skip
    (root / "recipe.yaml").write_text(yaml.safe_dump(recipe))
    dedupe = {"documents": ["documents/*.gz"], "dedupe": {"name": "dd", "paragraphs": {"attribute_name": "dup"}},
              "bloom_filter": {"file": "filter.bin", "read_only": False, "estimated_doc_count": 1000, "desired_false_positive_rate": 0.001}}  # fmt: skip
    (root / "dedupe.json").write_text(json.dumps(dedupe))


def deep_loads(text: str):
    return on_deep_stack(json.loads, text)


def test_a_deeply_nested_document_is_read_by_every_command(tmp_path):
    """10,000 nested arrays, where Python's decoders stop at 1,000: mix (and its dry run), tag, dedupe,
    tokens and sql all read the file; mix writes the document whole, with the attributes merged."""
    depth = 10_000
    deep_corpus(tmp_path, depth)
    ok(["mix", "recipe.yaml"], tmp_path)
    lines = gzip.decompress((tmp_path / "mixed" / "s-0000.jsonl.gz").read_bytes()).decode().splitlines()
    documents = [deep_loads(line) for line in lines]
    assert [document["text"] for document in documents] == ["X text", "X text"]
    assert '"x":' + nested(depth) + "}" in lines[1] and '"deep":' + nested(depth) in lines[1], "written whole"
    assert documents[1]["metadata"]["provenance"] == "part-0.jsonl.gz:2"
    assert "kept" in ok(["mix", "recipe.yaml", "--dry-run"], tmp_path)

    ok(["tag", "--documents", "documents/*.gz", "--taggers", "char_length_v1", "--experiment", "t"], tmp_path)
    assert len(gzip.decompress((tmp_path / "attributes" / "t" / "part-0.jsonl.gz").read_bytes()).splitlines()) == 3
    ok(["-c", "dedupe.json", "dedupe"], tmp_path)
    assert len(gzip.decompress((tmp_path / "attributes" / "dd" / "part-0.jsonl.gz").read_bytes()).splitlines()) == 3
    assert "3 documents" in ok(["tokens", "--documents", "documents/*.gz", *TOKENIZER, "--destination", "tokens"], tmp_path)
    assert "│ 3 " in ok(["sql", "--documents", "documents/*.gz", "SELECT count(*) AS n FROM documents"], tmp_path)


def test_deeper_than_the_mixer_reads_is_an_error_naming_the_file_and_line(tmp_path):
    deep_corpus(tmp_path, DEEPEST + 1000)
    for args in (["mix", "recipe.yaml"], ["mix", "recipe.yaml", "--dry-run"]):
        result = run_cli(args, tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
        assert f"error: documents/part-0.jsonl.gz:2: JSON nested more than {DEEPEST:,} levels deep" in result.stderr
    assert not list((tmp_path / "mixed").glob("*.gz"))


def test_a_deeply_nested_attribute_line_is_named_by_its_own_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    deep_corpus(tmp_path, 10)
    write_jsonl_gz(tmp_path / "attributes" / "a" / "part-0.jsonl.gz",
                   ['{"id":"0","attributes":{"score":[[0,5,1.0]]}}', '{"id":"1","attributes":{"score":[[0,4,1.0]],"deep":' + nested(DEEPEST + 1000) + "}}",
                    '{"id":"2","attributes":{"score":[[0,5,0.2]]}}'])  # fmt: skip
    config = config_from(yaml.safe_load((tmp_path / "recipe.yaml").read_text()), MixerConfig)
    with pytest.raises(InputError, match="nested more than") as error:
        mixer.run(config, executor=SerialExecutor(), quiet=True)
    assert (error.value.path, error.value.line) == ("attributes/a/part-0.jsonl.gz", 2)
    assert sys.getrecursionlimit() < DEEPEST, "the limit is raised only while a deep line is read"


# item 8: unwritable destinations


def unwritable_cases(root: Path, locked: str) -> dict[str, tuple[list[str], str]]:
    """Each command writing into the read-only folder ``locked``: its arguments and the config path the error names."""
    (root / "recipe.yaml").write_text(yaml.safe_dump({"streams": [{"name": "s", "documents": ["documents/*.gz"], "output": {"path": f"{locked}/mix"}}]}))
    dedupe = {"documents": ["documents/*.gz"], "dedupe": {"name": "dd", "paragraphs": {"attribute_name": "dup"}},
              "bloom_filter": {"file": f"{locked}/filter.bin", "read_only": False, "estimated_doc_count": 1000, "desired_false_positive_rate": 0.001}}  # fmt: skip
    (root / "dedupe.json").write_text(json.dumps(dedupe))
    (root / "dedupe-attributes.json").write_text(json.dumps({**dedupe, "documents": [f"{locked}-docs/documents/*.gz"],
                                                               "bloom_filter": {**dedupe["bloom_filter"], "file": "filter.bin"}}))  # fmt: skip
    return {
        "mix": (["mix", "recipe.yaml"], "streams[0].output.path"),
        "tag": (["tag", "--documents", "documents/*.gz", "--taggers", "char_length_v1", "--destination", f"{locked}/tag"], "destination"),
        "tokens": (["tokens", "--documents", "documents/*.gz", *TOKENIZER, "--destination", f"{locked}/tokens"], "destination"),
        "dedupe-filter": (["-c", "dedupe.json", "dedupe"], "bloom_filter.file"),
        "dedupe-attributes": (["-c", "dedupe-attributes.json", "dedupe"], "documents"),
        "stat": (["stat", "--attributes", "attributes/a/*.gz", "--report", f"{locked}/report"], "report"),
    }


@pytest.mark.parametrize("command", ["mix", "tag", "tokens", "dedupe-filter", "dedupe-attributes", "stat"])
def test_an_unwritable_destination_is_one_clear_error_before_any_work(tmp_path, read_only_folder, command):
    deep_corpus(tmp_path, 3)
    (tmp_path / "locked").symlink_to(read_only_folder)
    documents_beside = tmp_path / "locked-docs" / "documents"  # dedupe writes attributes beside its documents
    documents_beside.parent.mkdir()
    documents_beside.symlink_to(tmp_path / "documents")
    (tmp_path / "locked-docs" / "attributes").symlink_to(read_only_folder)
    args, where = unwritable_cases(tmp_path, "locked")[command]
    result = run_cli(args, tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith(f"error: {where}: ") and "is not writable" in lines[0] and "Read-only file system" in lines[0], result.stderr
    assert lines[1:] == ["  hint: point it at a folder you can write to"], "one error, no progress: no work was started"
    assert list(read_only_folder.iterdir()) == []


# item 9: NaN and Infinity in attribute spans


def scored_corpus(root: Path, third_score: str, **stream) -> Path:
    write_jsonl_gz(root / "documents" / "part-0.jsonl.gz", [json.dumps({"id": str(i), "text": f"document {i}", "source": "t"}) for i in range(4)])
    scores = ["0.1", "0.5", third_score, "0.7"]
    write_jsonl_gz(root / "attributes" / "a" / "part-0.jsonl.gz",
                   ['{"id": "%d", "attributes": {"Information_score": [[0, 3, %s]], "note": "a, Inf"}}' % (i, score) for i, score in enumerate(scores)])  # fmt: skip
    config = {"streams": [{"name": "s", "documents": [str(root / "documents" / "*.gz")], "attributes": ["a"], "output": {"path": str(root / "mixed")}, **stream}]}
    return config


FILTER = {"filter": {"exclude": ["$.attributes[?(@.Information_score[0][2] > 0.9)]"]}}
SPANS = {"span_replacement": [{"span": "$.attributes.Information_score", "min_score": 0.0, "replacement": "X"}]}


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "NAN", "-INF"])
@pytest.mark.parametrize("rules", [FILTER, SPANS], ids=["filter", "span_replacement"])
@pytest.mark.parametrize("dry_run", [False, True], ids=["mix", "dry-run"])
def test_nan_or_infinity_in_an_attribute_is_an_error_naming_file_line_and_attribute(tmp_path, value, rules, dry_run):
    config = config_from(scored_corpus(tmp_path, value, **rules), MixerConfig)
    with pytest.raises(InputError, match=r"attribute 'Information_score' holds .*JSON has no NaN or Infinity") as error:
        (mixer.dry_run if dry_run else mixer.run)(config, executor=SerialExecutor(), quiet=True)
    assert (error.value.path, error.value.line) == (str(tmp_path / "attributes" / "a" / "part-0.jsonl.gz"), 3)
    assert f"holds {value} " in str(error.value)
    assert not (tmp_path / "mixed").exists() or not list((tmp_path / "mixed").glob("*.gz"))


def test_keys_and_strings_that_spell_inf_or_nan_and_large_finite_numbers_are_fine(tmp_path):
    """The search for NaN and Infinity reads values: 'Information_score', the string "a, Inf" and 1e300 pass."""
    config = config_from(scored_corpus(tmp_path, "1e300", **FILTER), MixerConfig)
    result = mixer.run(config, executor=SerialExecutor(), quiet=True)
    assert result.totals["documents_kept"] == 3


def test_the_cli_reports_it_in_one_line(tmp_path):
    config = scored_corpus(tmp_path, "Infinity", **FILTER)
    (tmp_path / "recipe.yaml").write_text(yaml.safe_dump(config))
    for args in (["mix", "recipe.yaml"], ["mix", "recipe.yaml", "--dry-run"]):
        result = run_cli(args, tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert f"error: {tmp_path}/attributes/a/part-0.jsonl.gz:3: attribute 'Information_score' holds Infinity" in result.stderr
