"""Bad input to the mixer: each case fails with an error that names the file and line (or
config path) and leaves nothing half-written."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dolma_sql import mixer
from dolma_sql.config import load_config
from dolma_sql.config.mix import MixerConfig
from dolma_sql.errors import CompileError, ConfigError, InputError
from dolma_sql.mixer import shard, write
from dolma_sql.runtime import SerialExecutor


def write_lines(path: Path, lines: list[str | bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines)
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)


def corpus(root: Path, docs: list[dict], attributes: dict[str, list[dict]] | None = None) -> None:
    write_lines(root / "documents" / "0.jsonl", [json.dumps(d) for d in docs])
    for name, records in (attributes or {}).items():
        write_lines(root / "attributes" / name / "0.jsonl", [json.dumps(r) for r in records])


def recipe(root: Path, **stream) -> Path:
    config = {
        "streams": [
            {
                "name": "s",
                "documents": [str(root / "documents" / "*.jsonl")],
                "output": {"path": str(root / "out")},
                **stream,
            }
        ]
    }
    path = root / "recipe.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def run(path: Path, **kwargs):
    config = load_config(MixerConfig, config_file=str(path), flags=[])
    return mixer.run(config, executor=SerialExecutor(), quiet=True, **kwargs)


DOCS = [{"id": str(i), "text": f"doc {i}", "source": "t"} for i in range(4)]
ATTRS = [{"id": str(i), "attributes": {"score": [[0, 3, i / 4]]}} for i in range(4)]
KEEP_HIGH = {"filter": {"include": ["$.attributes[?(@.score[0][2] >= 0.5)]"]}, "attributes": ["a"]}


def assert_nothing_written(root: Path) -> None:
    out = root / "out"
    assert not out.exists() or not [p for p in out.iterdir()], list(out.iterdir())


def test_malformed_json_line_names_file_and_line(tmp_path):
    write_lines(tmp_path / "documents" / "0.jsonl", ['{"id":"0","text":"a"}', '{"id":"1","text":', '{"id":"2","text":"c"}'])
    with pytest.raises(InputError) as error:
        run(recipe(tmp_path))
    assert error.value.path.endswith("documents/0.jsonl") and error.value.line == 2
    assert "malformed JSON" in str(error.value)
    assert_nothing_written(tmp_path)


def test_blank_line_and_non_object_are_errors(tmp_path):
    write_lines(tmp_path / "documents" / "0.jsonl", ['{"id":"0","text":"a"}', "[1, 2]"])
    with pytest.raises(InputError) as error:
        run(recipe(tmp_path))
    assert error.value.line == 2 and "JSON object" in str(error.value)


def test_document_without_text_is_an_error(tmp_path):
    corpus(tmp_path, [{"id": "0", "text": "a"}, {"id": "1", "txt": "b"}])
    with pytest.raises(InputError) as error:
        run(recipe(tmp_path))
    assert error.value.line == 2 and "text" in str(error.value)
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize("standard", [False, True], ids=["other-fields", "standard-fields"])
@pytest.mark.parametrize("kept", [True, False])
def test_document_without_text_is_an_error_whether_kept_or_dropped(tmp_path, kept, standard):
    """The query checks dropped documents and the mixer the kept ones it decodes (with dolma's standard
    fields, it leaves texts undecoded): each must catch it."""
    docs = DOCS[:2] + [{"id": "2", "text": ["not", "a", "string"]}] + DOCS[3:]
    if standard:
        docs = [{**d, "source": "t", "added": "", "created": "", "metadata": {}} for d in docs]
    corpus(tmp_path, docs, {"a": ATTRS})
    rule = "$.attributes[?(@.score[0][2] >= 0.5)]"  # keeps documents 2 and 3
    with pytest.raises(InputError, match="no string 'text'") as error:
        run(recipe(tmp_path, filter={"include" if kept else "exclude": [rule]}, attributes=["a"]))
    assert error.value.line == 3
    assert_nothing_written(tmp_path)


def test_invalid_utf8_names_the_line(tmp_path):
    write_lines(tmp_path / "documents" / "0.jsonl", ['{"id":"0","text":"a"}', b'{"id":"1","text":"\xff\xfe"}'])
    with pytest.raises(InputError) as error:
        run(recipe(tmp_path))
    assert error.value.line == 2 and "UTF-8" in str(error.value)


def test_mismatched_ids_name_both_files_line_and_ids(tmp_path):
    attrs = [dict(r) for r in ATTRS]
    attrs[2]["id"] = "WRONG"
    corpus(tmp_path, DOCS, {"a": attrs})
    with pytest.raises(InputError) as error:
        run(recipe(tmp_path, **KEEP_HIGH))
    message = str(error.value)
    assert error.value.path.endswith("attributes/a/0.jsonl") and error.value.line == 3
    assert '"WRONG"' in message and '"2"' in message and "documents/0.jsonl:3" in message
    assert_nothing_written(tmp_path)


def test_a_document_without_an_id_is_named_not_its_attribute_file(tmp_path):
    docs = [dict(r) for r in DOCS]
    del docs[1]["id"]
    corpus(tmp_path, docs, {"a": ATTRS})
    with pytest.raises(InputError, match="document has no 'id', but its attribute line has id \"1\"") as error:
        run(recipe(tmp_path, **KEEP_HIGH))
    assert error.value.path.endswith("documents/0.jsonl") and error.value.line == 2
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize("attribute_id", ["missing", None], ids=["missing", "null"])
def test_a_document_without_an_id_matches_an_attribute_line_without_one(tmp_path, attribute_id):
    """As in dolma: dedupe writes ``"id":null`` for a document without an id, and mix pairs the two."""
    docs, attrs = [dict(r) for r in DOCS], [dict(r) for r in ATTRS]
    del docs[3]["id"]
    if attribute_id == "missing":
        del attrs[3]["id"]
    else:
        attrs[3]["id"] = attribute_id
    corpus(tmp_path, docs, {"a": attrs})
    run(recipe(tmp_path, **KEEP_HIGH))
    kept = [json.loads(line) for path in sorted((tmp_path / "out").glob("*.gz")) for line in gzip.decompress(path.read_bytes()).splitlines()]
    assert [doc.get("id", "none") for doc in kept] == ["2", "none"]


def test_int_and_string_ids_do_not_match(tmp_path):
    attrs = [dict(r) for r in ATTRS]
    attrs[0]["id"] = 0
    corpus(tmp_path, DOCS, {"a": attrs})
    with pytest.raises(InputError, match="mismatched ids"):
        run(recipe(tmp_path, **KEEP_HIGH))


def test_short_and_long_attribute_files_are_errors(tmp_path):
    corpus(tmp_path, DOCS, {"a": ATTRS[:2]})
    with pytest.raises(InputError) as error:
        run(recipe(tmp_path, **KEEP_HIGH))
    assert "2 lines" in str(error.value)
    corpus(tmp_path, DOCS, {"a": ATTRS + [{"id": "9", "attributes": {}}]})
    with pytest.raises(InputError, match="more lines"):
        run(recipe(tmp_path, **KEEP_HIGH))


def test_missing_attribute_set_is_an_error_unless_allowed(tmp_path):
    corpus(tmp_path, DOCS, {"a": ATTRS})
    path = recipe(tmp_path, filter={"include": ["$.attributes[?(@.score[0][2] >= 0.5)]"]}, attributes=["a", "nope"])
    with pytest.raises(InputError) as error:
        run(path)
    assert "'nope'" in str(error.value) and "--allow-missing-attributes" in str(error.value)
    result = run(path, allow_missing_attributes=True)
    assert result.totals["documents_kept"] == 2


def test_a_misspelled_attribute_set_is_one_error_before_any_shard(tmp_path):
    """Found while planning, from the first documents file: no warning about its keys first, no shard written."""
    corpus(tmp_path, DOCS, {"a": ATTRS})
    path = recipe(tmp_path, filter={"include": ["$.attributes[?(@.score[0][2] >= 0.5)]"]}, attributes=["nope"])
    result = subprocess.run([sys.executable, "-P", "-m", "dolma_sql", "mix", str(path)], capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ") and "attribute set 'nope' has no file for these documents" in result.stderr, result.stderr
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize("attributes", [[1], "score", None, "missing"])
@pytest.mark.parametrize("reads_a_key", [True, False])
def test_attribute_line_without_attributes_object(tmp_path, attributes, reads_a_key):
    """Lines where none of the recipe's keys is found are parsed again to check their type."""
    attrs = [dict(r) for r in ATTRS]
    attrs[1] = {"id": "1"} if attributes == "missing" else {"id": "1", "attributes": attributes}
    corpus(tmp_path, DOCS, {"a": attrs})
    stream = KEEP_HIGH if reads_a_key else {"filter": {"include": ["$.metadata[?(@.x == 1)]"]}, "attributes": ["a"]}
    with pytest.raises(InputError, match="no 'attributes' object") as error:
        run(recipe(tmp_path, **stream))
    assert error.value.line == 2


def test_attribute_line_with_none_of_the_recipe_keys_is_fine(tmp_path):
    attrs = [dict(r) for r in ATTRS]
    attrs[1] = {"id": "1", "attributes": {}}
    attrs[2] = {"id": "2", "attributes": {"other": [[0, 1, 1.0]]}}
    corpus(tmp_path, DOCS, {"a": attrs})
    assert run(recipe(tmp_path, **KEEP_HIGH)).totals["documents_kept"] == 1  # only document 3 has score >= 0.5 now


def test_unknown_filter_key_warns_with_available_keys(tmp_path):
    corpus(tmp_path, DOCS, {"a": ATTRS})
    warnings: list[str] = []
    run(recipe(tmp_path, filter={"exclude": ["$.attributes[?(@.scroe[0][2] > 0.5)]"]}, attributes=["a"]), warn=warnings.append)
    assert any("scroe" in w and "score" in w for w in warnings), warnings


@pytest.mark.parametrize(
    "syntax, expression",
    [("jsonpath", "$.attributes[?(@.x[0][2] >>= 1)]"), ("jq", ".attributes | .["), ("sql", "score(attributes.x) >")],
)
def test_invalid_expression_fails_before_any_work(tmp_path, syntax, expression):
    corpus(tmp_path, DOCS, {"a": ATTRS})
    with pytest.raises(CompileError) as error:
        run(recipe(tmp_path, filter={"exclude": [expression], "syntax": syntax}, attributes=["a"]))
    assert "streams[0].filter.exclude[0]" in str(error.value) and expression in str(error.value)
    assert not (tmp_path / "out").exists()


def test_unwritable_output_path(tmp_path):
    corpus(tmp_path, DOCS)
    (tmp_path / "blocker").write_text("a file, not a folder")
    path = recipe(tmp_path)
    config = yaml.safe_load(path.read_text())
    config["streams"][0]["output"]["path"] = str(tmp_path / "blocker" / "out")
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError) as error:
        run(path)
    assert error.value.path == "streams[0].output.path"


def test_empty_glob(tmp_path):
    (tmp_path / "documents").mkdir()
    with pytest.raises(ConfigError, match="no files match") as error:
        run(recipe(tmp_path))
    assert error.value.path == "streams[0].documents"


@pytest.mark.parametrize(
    "span, message",
    [
        ([[0, 3]], "bad span"),
        ([[0.0, 3, 1.0]], "bad span"),
        ([[3, 1, 1.0]], "start <= end"),
        ([[0, 1, 1.0], [5, 2, 1.0]], r"bad span \[5,2,1.0\].*start <= end"),  # the second span of the line
        ([[-1, 2, 1.0]], r"bad span \[-1,2,1.0\]"),
        (5, "bad span"),
    ],
)
def test_bad_span_shape_names_the_line(tmp_path, span, message):
    attrs = [dict(r) for r in ATTRS]
    attrs[3] = {"id": "3", "attributes": {"score": span}}
    corpus(tmp_path, DOCS, {"a": attrs})
    with pytest.raises(InputError, match=message) as error:
        run(recipe(tmp_path, attributes=["a"], span_replacement=[{"span": "$.attributes.score", "min_score": 0.0}]))
    assert error.value.line == 4


def test_config_errors_carry_the_field_path(tmp_path):
    corpus(tmp_path, DOCS)
    path = recipe(tmp_path, span_replacement=[{"span": "$.attributes.x", "min_score": "high"}])
    with pytest.raises(ConfigError) as error:
        run(path)
    assert "streams[0].span_replacement[0].min_score" in str(error.value)
    path = recipe(tmp_path, filtr={"include": ["$.id"]})
    with pytest.raises(ConfigError, match="filtr") as error:
        run(path)


def test_cli_prints_error_without_traceback_and_exits_nonzero(tmp_path):
    write_lines(tmp_path / "documents" / "0.jsonl", ['{"id":"0","text":"a"}', "not json"])
    result = subprocess.run([sys.executable, "-P", "-m", "dolma_sql", "mix", str(recipe(tmp_path))], capture_output=True, text=True)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "0.jsonl:2" in result.stderr and "malformed JSON" in result.stderr


def test_interrupted_shard_leaves_no_final_file_and_rerun_completes(tmp_path, monkeypatch):
    corpus(tmp_path, DOCS, {"a": ATTRS})
    path = recipe(tmp_path, **KEEP_HIGH)
    calls = {"n": 0}
    original = write.mix_batch

    def crash(*args, **kwargs):
        calls["n"] += 1
        original(*args, **kwargs)
        raise InputError("simulated crash")

    monkeypatch.setattr(write, "mix_batch", crash)
    with pytest.raises(InputError, match="simulated"):
        run(path)
    assert not (tmp_path / "out").exists()  # no final file, nor the folder the run made
    monkeypatch.setattr(write, "mix_batch", original)
    result = run(path)
    assert result.totals["documents_kept"] == 2
    assert sorted(p for p in os.listdir(tmp_path / "out") if not p.startswith(".")) == ["s-0000.jsonl.gz"]


def test_jq_runtime_error_names_rule_file_and_line(tmp_path):
    corpus(tmp_path, DOCS, {"a": ATTRS})
    path = recipe(tmp_path, attributes=["a"], filter={"syntax": "jq", "exclude": ['if .id == "2" then error("boom") else false end']})
    with pytest.raises(InputError) as error:
        run(path)
    assert error.value.line == 3 and error.value.path.endswith("documents/0.jsonl")
    assert "streams[0].filter.exclude[0]" in str(error.value)
    assert_nothing_written(tmp_path)


def test_a_failed_shard_does_not_spoil_the_next_in_the_same_process(tmp_path):
    """Shards share their process's DuckDB connection: one that fails on a malformed line leaves it usable."""
    write_lines(tmp_path / "documents" / "0.jsonl", ['{"id":"0","text":"a"}', "not json"])
    write_lines(tmp_path / "documents" / "1.jsonl", [json.dumps(d) for d in DOCS])
    path = recipe(tmp_path, output={"path": str(tmp_path / "out"), "max_size_in_bytes": 1})
    path.write_text(yaml.safe_dump({**yaml.safe_load(path.read_text()), "processes": 1}))  # both shards in this process, in order
    with pytest.raises(InputError, match="malformed JSON"):
        run(path)
    outputs = sorted(p for p in os.listdir(tmp_path / "out") if not p.startswith("."))
    assert len(outputs) == 1
    with gzip.open(tmp_path / "out" / outputs[0], "rt") as handle:
        assert [json.loads(line)["id"] for line in handle] == [d["id"] for d in DOCS]


# ------------------------------------------------------------------ a shard read in many batches
# A shard's query runs once over a stream of all its batches and its result is cut back into them;
# tiny batches (a line or two each, attribute reads out of step with the documents') exercise that.
MANY = [{"id": str(i), "text": f"document number {i} é😀", "source": "t"} for i in range(60)]
MANY_ATTRS = [{"id": str(i), "attributes": {"score": [[0, 3, (i % 4) / 4]], "pii": [[9, 15, 1.0]] if i % 3 else []}} for i in range(60)]
MANY_RECIPE = {
    "attributes": ["a"],
    "filter": {"exclude": ["$.attributes[?(@.score[0][2] < 0.25)]"]},
    "span_replacement": [{"span": "$.attributes.pii", "min_score": 0.5, "replacement": "<{}>"}],
}


def tiny_batches(monkeypatch, batch_bytes: int = 48) -> None:
    read = shard.iter_line_batches
    monkeypatch.setattr(shard, "iter_line_batches", lambda path, *, codec=None, batch_bytes_=batch_bytes, **_: read(path, codec=codec, batch_bytes=batch_bytes_))


def test_a_shard_in_many_batches_mixes_as_in_one(tmp_path, monkeypatch):
    from mixhelpers import read_outputs

    corpus(tmp_path / "one", MANY, {"a": MANY_ATTRS})
    run(recipe(tmp_path / "one", **MANY_RECIPE))
    corpus(tmp_path / "many", MANY, {"a": MANY_ATTRS})
    tiny_batches(monkeypatch)
    result = run(recipe(tmp_path / "many", **MANY_RECIPE))
    assert read_outputs(str(tmp_path / "many" / "out")) == read_outputs(str(tmp_path / "one" / "out"))
    assert result.totals["documents_kept"] == 45 and result.totals["documents_span_replaced"] == 30
    provenance = [json.loads(line)["metadata"]["provenance"] for line in gzip.open(tmp_path / "many" / "out" / "s-0000.jsonl.gz", "rt")]
    assert provenance == [f"0.jsonl:{i + 1}" for i in range(60) if i % 4]


def test_the_stream_query_reads_no_further_ahead_than_the_batches_it_answers(tmp_path, monkeypatch):
    """Memory holds a batch or two of a shard, never the whole shard waiting for its answers."""
    corpus(tmp_path, MANY, {"a": MANY_ATTRS})
    tiny_batches(monkeypatch)
    monkeypatch.setattr(shard, "RESULT_ROWS", 1)  # as a real batch is answered by about one result batch
    monkeypatch.setattr(shard, "RESULT_BUFFER_BYTES", 1)  # as one real batch's answers fill the buffer
    events: list[str] = []
    query_input, mix_batch = shard.query_input, write.mix_batch
    monkeypatch.setattr(shard, "query_input", lambda batch, lines: (batch and events.append("read"), query_input(batch, lines))[1])
    monkeypatch.setattr(write, "mix_batch", lambda *args: (events.append("mixed"), mix_batch(*args))[1])
    shard.process_connection.cache_clear()  # a connection with the buffer above
    try:
        run(recipe(tmp_path, **MANY_RECIPE))
    finally:
        shard.process_connection.cache_clear()
    in_flight = [events[: i + 1].count("read") - events[: i + 1].count("mixed") for i in range(len(events))]
    assert events.count("mixed") == events.count("read") > 20
    assert max(in_flight) <= 3, in_flight


@pytest.mark.parametrize("bad_line", [1, 37, 60])
def test_errors_in_a_later_batch_name_their_line(tmp_path, monkeypatch, bad_line):
    tiny_batches(monkeypatch)
    docs = [json.dumps(d, ensure_ascii=False) for d in MANY]
    for case, expected in [("malformed", "malformed JSON"), ("misaligned", "mismatched ids"), ("jq", "failed on the document"), ("utf8", "invalid UTF-8")]:
        root = tmp_path / f"{case}-{bad_line}"
        lines: list[str | bytes] = list(docs)
        attrs = [json.dumps(r) for r in MANY_ATTRS]
        stream = dict(MANY_RECIPE)
        if case == "malformed":
            lines[bad_line - 1] = '{"id": "x", "text": '
        elif case == "misaligned":
            attrs[bad_line - 1] = json.dumps({"id": "other", "attributes": {}})
        elif case == "jq":
            stream["filter"] = {"syntax": "jq", "exclude": [f'if .id == "{bad_line - 1}" then error("boom") else false end']}
        else:
            lines[bad_line - 1] = lines[bad_line - 1].encode().replace(b"\xc3\xa9", b"\xc3")
        write_lines(root / "documents" / "0.jsonl", lines)
        write_lines(root / "attributes" / "a" / "0.jsonl", attrs)
        with pytest.raises(InputError) as error:
            run(recipe(root, **stream))
        assert error.value.line == bad_line and expected in str(error.value), (case, str(error.value))
        assert case != "jq" or "guard such a step with `?`" in error.value.hint
        assert_nothing_written(root)


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_sql_filter_that_fails_on_one_document_names_its_line(tmp_path, dry_run):
    """A run-time failure of a SQL filter (a CAST of a value that is no integer) is an error naming the document's line and
    saying how to guard the filter, in the mix and in its dry run, not DuckDB's traceback."""
    docs = [{"id": str(i), "text": f"doc {i}", "metadata": {"n": "x" if i == 2 else i}} for i in range(4)]
    corpus(tmp_path, docs)
    path = recipe(tmp_path, filter={"syntax": "sql", "exclude": ["CAST(metadata.n AS INTEGER) > 2"]})
    config = load_config(MixerConfig, config_file=str(path), flags=[])
    with pytest.raises(InputError) as error:
        (mixer.dry_run if dry_run else mixer.run)(config, executor=SerialExecutor(), quiet=True)
    assert error.value.path.endswith("documents/0.jsonl") and error.value.line == 3
    assert "the query of streams[0] failed on this document: Conversion Error" in str(error.value) and "TRY_CAST" in error.value.hint
    assert_nothing_written(tmp_path)
