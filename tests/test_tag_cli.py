"""dolma-sql tag / list: layout, resume, errors, plugins, reproducibility, DuckDB functions."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import dolma_sql.tagging
from dolma_sql.cli import app
from dolma_sql.formats.attributes import round_scores
from dolma_sql.tagging import TagBatch, get_tagger
from tag_helpers import read_rows, write_jsonl_gz

DOCS = [{"id": f"d{i}", "text": f"Hello world number {i}.\nSecond line here {i}", "source": "s"} for i in range(5)]


def invoke(args: list[str], cwd: Path):
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, args)
    finally:
        os.chdir(previous)


def ok(args: list[str], cwd: Path):
    result = invoke(args, cwd)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def fail(args: list[str], cwd: Path) -> str:
    result = invoke(args, cwd)
    assert result.exit_code == 1, result.output
    return str(result.exception) + result.output


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    write_jsonl_gz(tmp_path / "documents" / "a.jsonl.gz", DOCS)
    write_jsonl_gz(tmp_path / "documents" / "sub" / "b.jsonl.gz", DOCS[:2])
    return tmp_path


def test_experiment_layout_and_row_format(corpus):
    ok(["tag", "--documents", "documents/**/*.jsonl.gz", "--taggers", "char_length_v1", "doc_count_v1", "--experiment", "my-exp"], corpus)
    rows = read_rows(corpus / "attributes/my-exp/a.jsonl.gz")
    assert [r["id"] for r in rows] == [d["id"] for d in DOCS]
    first = gzip.open(corpus / "attributes/my-exp/a.jsonl.gz", "rt").readline()
    length = len(DOCS[0]["text"])
    assert first == f'{{"id":"d0","attributes":{{"my_exp__char_length_v1__length":[[0,{length},{length}.0]],"my_exp__doc_count_v1__docs":[[0,{length},1.0]]}},"source":"s"}}\n'
    assert len(read_rows(corpus / "attributes/my-exp/sub/b.jsonl.gz")) == 2


def test_per_tagger_directories_without_experiment(corpus):
    ok(["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "char_length_v1", "doc_count_v1"], corpus)
    assert "char_length_v1__char_length_v1__length" in read_rows(corpus / "attributes/char_length_v1/a.jsonl.gz")[0]["attributes"]
    assert "doc_count_v1__doc_count_v1__docs" in read_rows(corpus / "attributes/doc_count_v1/a.jsonl.gz")[0]["attributes"]


def test_destination_replaces_the_derived_path(corpus):
    ok(["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "char_length_v1", "--experiment", "e", "--destination", "out/x"], corpus)
    assert (corpus / "out/x/a.jsonl.gz").exists() and not (corpus / "attributes").exists()


def test_config_file_and_dotted_flags(corpus):
    (corpus / "tag.yaml").write_text("documents: [documents/a.jsonl.gz]\ntaggers: [bytes_length_v1]\nexperiment: cfg\n")
    ok(["-c", "tag.yaml", "tag", "--work_dir.output", "wd", "--tagger-modules"], corpus)
    assert read_rows(corpus / "attributes/cfg/a.jsonl.gz")[0]["attributes"]["cfg__bytes_length_v1__bytes"][0][2] == len(DOCS[0]["text"])


def test_rerun_skips_finished_files_unless_ignore_existing(corpus):
    args = ["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "char_length_v1", "--experiment", "e"]
    ok(args, corpus)
    output = corpus / "attributes/e/a.jsonl.gz"
    assert len(list((corpus / "attributes/e/.dolma-sql").glob("a.jsonl.gz.tag.*.done"))) == 1
    output.write_bytes(gzip.compress(b"stale\n"))
    ok(args, corpus)
    assert gzip.decompress(output.read_bytes()) == b"stale\n"
    ok([*args, "--ignore_existing"], corpus)
    assert len(read_rows(output)) == len(DOCS)
    # a different tagger set is a different request: not skipped
    ok(["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "doc_count_v1", "--experiment", "e"], corpus)
    assert "e__doc_count_v1__docs" in read_rows(output)[0]["attributes"]


def test_malformed_json_names_file_and_line_and_leaves_no_output(tmp_path):
    path = tmp_path / "documents" / "bad.jsonl.gz"
    path.parent.mkdir()
    lines = [json.dumps(d) for d in DOCS[:2]] + ['{"id": "x", "text": "unterminated']
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    message = fail(["tag", "--documents", "documents/bad.jsonl.gz", "--taggers", "char_length_v1", "--experiment", "e"], tmp_path)
    assert "bad.jsonl.gz:3" in message
    assert not list((tmp_path / "attributes").rglob("*.gz")) and not list((tmp_path / "attributes").rglob("*.tmp"))


def test_document_without_text_names_the_line(tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "a.jsonl.gz", [DOCS[0], {"id": "no-text"}])
    message = fail(["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "char_length_v1"], tmp_path)
    assert "a.jsonl.gz:2" in message and "text" in message


@pytest.mark.parametrize(
    "line, expected",
    [
        ('{"id":"a","text":"x","source":"s"}', ("a", "x", "s")),
        ('{"id":7,"text":"x"}', ("7", "x", None)),  # a number id is its JSON text
        (' {"id":"a","text":"x","sour\\u0063e":"s"}', ("a", "x", "s")),  # leading space, escaped key
        ('{"id":"a","text":"caf\\u00e9","source":null,"metadata":{"k":[1]}}', ("a", "café", None)),
    ],
)
def test_document_reader_fast_path_and_its_fallback_agree(tmp_path, line, expected):
    from dolma_sql.formats.documents import iter_document_batches

    path = tmp_path / "d.jsonl"
    path.write_text('{"id":"0","text":"first","source":"s"}\n' + line + "\n", encoding="utf-8")
    (batch,) = iter_document_batches(str(path), fields=("id", "text", "source"), required=("text",))
    assert [tuple(row.values()) for row in batch.table.to_pylist()] == [("0", "first", "s"), expected]


def test_unknown_tagger_suggests_nearest_names(corpus):
    message = fail(["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "gopher_v3"], corpus)
    assert "unknown tagger 'gopher_v3'" in message and "gopher_v1" in message


def test_empty_file_gives_empty_attribute_file(tmp_path):
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "empty.jsonl.gz").write_bytes(gzip.compress(b""))
    ok(["tag", "--documents", "documents/*.gz", "--taggers", "gopher_v1", "--experiment", "e"], tmp_path)
    assert gzip.decompress((tmp_path / "attributes/e/empty.jsonl.gz").read_bytes()) == b""


def test_no_matching_documents_is_an_error(tmp_path):
    assert "no files match" in fail(["tag", "--documents", "documents/*.gz", "--taggers", "gopher_v1"], tmp_path)


PLUGIN = textwrap.dedent(
    """
    import os
    import numpy as np
    from dolma_sql.tagging import Spans, tagger

    @tagger("vowel_count_v1", types=["vowels", "never"], defaults=["never"])
    def vowel_count(batch):
        if os.environ.get("DIE_ON") and os.environ["DIE_ON"] in batch.column("id").to_pylist():
            os._exit(137)  # a hard kill: no cleanup runs
        counts = batch.series.str.count_matches("[aeiou]").to_numpy()
        return {"vowels": Spans.document(batch.lengths, counts)}
    """
)


def test_plugin_module_from_file_with_defaults(corpus):
    (corpus / "my_taggers.py").write_text(PLUGIN)
    ok(["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "vowel_count_v1", "--experiment", "p", "--tagger_modules", "my_taggers.py"], corpus)
    attributes = read_rows(corpus / "attributes/p/a.jsonl.gz")[0]["attributes"]
    assert attributes["p__vowel_count_v1__never"] == []
    assert attributes["p__vowel_count_v1__vowels"][0][2] == sum(DOCS[0]["text"].count(v) for v in "aeiou")
    listing = ok(["list", "--tagger_modules", "my_taggers.py"], corpus).output
    assert "vowel_count_v1" in listing and "gopher_v1" in listing and "fraction_of_duplicate_lines" in listing


def test_killed_run_resumes_with_identical_output(tmp_path):
    """A worker killed mid-file leaves no attribute file under the final name; the rerun finishes the rest."""
    for root in (tmp_path / "once", tmp_path / "killed"):
        for name in ("a", "b", "c"):
            write_jsonl_gz(root / "documents" / f"{name}.jsonl.gz", [{**d, "id": f"{name}{d['id']}"} for d in DOCS])
        (root / "my_taggers.py").write_text(PLUGIN)
    command = [sys.executable, "-P", "-m", "dolma_sql", "tag", "--documents", "documents/*.gz", "--taggers", "vowel_count_v1", "gopher_v1",
               "--experiment", "e", "--tagger_modules", "my_taggers.py"]
    subprocess.run(command, cwd=tmp_path / "once", check=True, capture_output=True)
    killed = subprocess.run(command, cwd=tmp_path / "killed", env={**os.environ, "DIE_ON": "bd0"}, capture_output=True)
    assert killed.returncode != 0
    assert (tmp_path / "killed/attributes/e/a.jsonl.gz").exists() and not (tmp_path / "killed/attributes/e/b.jsonl.gz").exists()
    resumed = subprocess.run(command, cwd=tmp_path / "killed", capture_output=True, text=True, check=True)
    assert "skipping 1 of 3" in resumed.stderr
    for name in ("a", "b", "c"):
        once = (tmp_path / f"once/attributes/e/{name}.jsonl.gz").read_bytes()
        assert gzip.decompress(once) == gzip.decompress((tmp_path / f"killed/attributes/e/{name}.jsonl.gz").read_bytes())


def test_random_number_is_reproducible_across_runs_and_processes(tmp_path):
    for name in ("a", "b", "c"):
        write_jsonl_gz(tmp_path / "documents" / f"{name}.jsonl.gz", [{**d, "id": f"{name}{d['id']}"} for d in DOCS])
    base = ["tag", "--documents", "documents/*.gz", "--taggers", "random_number_v1", "--ignore_existing"]
    ok([*base, "--experiment", "one", "--processes", "1"], tmp_path)
    ok([*base, "--experiment", "two", "--processes", "2"], tmp_path)
    ok([*base, "--experiment", "seeded", "--seed", "5"], tmp_path)
    for name in ("a", "b", "c"):
        one = [r["attributes"]["one__random_number_v1__random"] for r in read_rows(tmp_path / f"attributes/one/{name}.jsonl.gz")]
        two = [r["attributes"]["two__random_number_v1__random"] for r in read_rows(tmp_path / f"attributes/two/{name}.jsonl.gz")]
        seeded = [r["attributes"]["seeded__random_number_v1__random"] for r in read_rows(tmp_path / f"attributes/seeded/{name}.jsonl.gz")]
        assert one == two and one != seeded
        assert all(0 <= spans[0][2] < 1 for spans in one)


def test_pii_regex_v1_scores_texts_without_words(tmp_path):
    """Upstream divides by zero (the whole file fails); dolma-sql scores them -1 like pii_regex_v2."""
    write_jsonl_gz(tmp_path / "documents" / "a.jsonl.gz", [{"id": "e", "text": ""}, {"id": "w", "text": " \n "}])
    ok(["tag", "--documents", "documents/a.jsonl.gz", "--taggers", "pii_regex_v1", "--experiment", "e"], tmp_path)
    assert [r["attributes"]["e__pii_regex_v1__doc"][0][2] for r in read_rows(tmp_path / "attributes/e/a.jsonl.gz")] == [-1.0, -1.0]


def test_the_tagger_api_keeps_its_names():
    """Tagger modules and the SQL sandbox import these from dolma_sql.tagging: renaming one breaks them."""
    assert sorted(dolma_sql.tagging.__all__) == [
        "Spans", "TagBatch", "TaggerSpec", "get_tagger", "make_variable_name", "register_duckdb_functions", "registry", "require_modules", "tagger",
    ]
    assert all(hasattr(dolma_sql.tagging, name) for name in dolma_sql.tagging.__all__)


@pytest.mark.parametrize("after", [b"\x00", b"\x80"])
def test_a_text_ending_in_whitespace_splits_alike_whatever_bytes_follow_it(after):
    """Arrow's whitespace split reads the character after a text's trailing whitespace (past the last text's bytes)."""
    offsets = np.array([0, 2, 5], dtype=np.int64)
    texts = pa.LargeStringArray.from_buffers(2, pa.py_buffer(offsets), pa.py_buffer(b"ab x " + after))
    batch = TagBatch(pa.table({"text": texts}))
    assert pa.compute.utf8_split_whitespace(batch.text).to_pylist() == [["ab"], ["", "x", ""]]
    assert get_tagger("gopher_v1").run(batch)["median_word_length"].scores.tolist() == [2.0, 1.0]


def test_duckdb_functions():
    import duckdb

    connection = duckdb.connect()
    assert dolma_sql.tagging.register_duckdb_functions(connection, ["char_length_v1", "gopher_v1"]) == ["char_length_v1", "gopher_v1"]
    value = connection.sql("SELECT char_length_v1('héllo 😊') AS a, gopher_v1('the cat the cat') AS g").fetchall()[0]
    assert json.loads(value[0]) == {"length": [[0, 7, 7.0]]}
    assert json.loads(value[1])["word_count"] == [[0, 15, 4.0]]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9), min_size=1, max_size=20))
def test_round_scores_is_pythons_round(values):
    assert round_scores(np.array(values)).tolist() == [round(v, 5) for v in values]


def test_round_scores_on_half_way_values():
    values = [0.000005, 0.000015, 0.123455, 2.675, 1.000005, 0.5e-5 * 3, 12345.678905]
    assert round_scores(np.array(values)).tolist() == [round(v, 5) for v in values]
