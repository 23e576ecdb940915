"""``dolma-sql sql``: the corpus views, the read-only guard, errors and output formats."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import SHARED
from dolma_sql.errors import ConfigError, DolmaSqlError
from dolma_sql.query import check_read_only
from dolma_sql.views import discover, view_statements

SETS = ["duplicate_paragraphs", "pii", "sample", "toxicity"]


def cli(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "dolma_sql", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as handle:
        return [json.loads(line) for line in handle]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)


def write_set(root: Path, name: str, documents: list[dict], attributes) -> None:
    """``attributes/<name>/000.jsonl.gz`` beside ``documents/000.jsonl.gz``: ``attributes(document)`` for each document."""
    write_jsonl(root / "attributes" / name / "000.jsonl.gz", [{"id": doc["id"], "attributes": attributes(doc)} for doc in documents])


def connection_for(documents: str, attributes: list[str] | None = None) -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    for statement in view_statements(discover([documents], attributes)):
        connection.execute(statement)
    return connection


def records(connection: duckdb.DuckDBPyConnection, query: str) -> list[dict]:
    relation = connection.sql(query)
    return [dict(zip(relation.columns, row)) for row in relation.fetchall()]


def spans_of(value) -> list[tuple[int, int, float]] | None:
    """The spans an attribute value holds, or None when it is not a list of [start, end, score]."""
    if isinstance(value, list) and all(isinstance(span, list) and len(span) == 3 for span in value):
        return [(int(s), int(e), float(score)) for s, e, score in value]
    return None


# ------------------------------------------------------------------------------ a generated corpus
@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    """Three document files from gencorpus, with two attribute sets of random spans (one file per document file)."""
    root = tmp_path_factory.mktemp("sqlcorpus")
    generator = SHARED / "bench" / "gencorpus.py"
    subprocess.run([sys.executable, str(generator), str(root), "--docs", "300", "--files", "3", "--seed", "7"], check=True, capture_output=True)
    rng = np.random.default_rng(0)
    for doc_path in sorted((root / "documents").glob("*.jsonl.gz")):
        for name in ("lengths", "random"):
            out = root / "attributes" / name / doc_path.name
            out.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(out, "wt") as handle:
                for doc in read_jsonl(doc_path):
                    n = len(doc["text"])
                    if name == "lengths":
                        attributes = {"exp__char_length_v1__length": [[0, n, float(n)]]}
                    else:
                        spans = sorted(rng.integers(0, n, size=(int(rng.integers(0, 4)), 2)).tolist())
                        attributes = {"exp__random__spans": [[a, max(a, b), float(rng.random())] for a, b in spans]}
                    handle.write(json.dumps({"id": doc["id"], "attributes": attributes}) + "\n")
    return root


# ------------------------------------------------------------------------------ views
def test_documents_view_is_every_line_with_file_and_row(conformance):
    path = conformance / "tests/data/provided/documents/000.json.gz"
    rows = records(connection_for(str(path), []), "SELECT * FROM documents ORDER BY row")
    expected = read_jsonl(path)
    assert [r["row"] for r in rows] == list(range(1, len(expected) + 1))
    assert {r["file"] for r in rows} == {str(path)}
    for row, doc in zip(rows, expected):
        assert (row["id"], row["text"], row["source"], row["added"], row["created"]) == (
            doc["id"], doc["text"], doc["source"], doc["added"], doc["created"]
        )
        assert json.loads(row["metadata"]) == doc["metadata"]


def test_attributes_view_has_one_column_per_key_typed_by_its_values(conformance):
    provided = conformance / "tests/data/provided"
    connection = connection_for(str(provided / "documents/000.json.gz"))  # every set beside the documents
    relation = connection.sql("SELECT * FROM attributes ORDER BY row")
    types = dict(zip(relation.columns, map(str, relation.types)))
    assert list(types)[:3] == ["id", "file", "row"]
    assert types["toxicity"] == "DOUBLE"
    assert types["pii"] == "JSON"
    assert types["sample__random_number_v1__random"].startswith("STRUCT(\"start\" BIGINT, \"end\" BIGINT, score DOUBLE)[]")
    rows = [dict(zip(relation.columns, row)) for row in relation.fetchall()]
    by_set = {name: read_jsonl(provided / "attributes" / name / "000.json.gz") for name in SETS}
    for index, row in enumerate(rows):
        for name, lines in by_set.items():
            assert lines[index]["id"] == row["id"]
            for key, value in lines[index]["attributes"].items():
                got = row[key]
                if spans_of(value) is not None:
                    assert [(s["start"], s["end"], s["score"]) for s in got] == spans_of(value)
                elif isinstance(value, (int, float)):
                    assert got == value
                else:
                    assert json.loads(got) == value


def test_spans_view_is_the_long_form_of_span_lists(conformance):
    provided = conformance / "tests/data/provided"
    doc_path = str(provided / "documents/000.json.gz")
    got = sorted(
        (r["row"], r["id"], r["attribute"], r["start"], r["end"], r["score"], r["file"])
        for r in records(connection_for(doc_path, SETS), "SELECT * FROM spans")
    )
    expected = sorted(
        (line, doc["id"], key, s, e, score, doc_path)
        for name in SETS
        for line, doc in enumerate(read_jsonl(provided / "attributes" / name / "000.json.gz"), start=1)
        for key, value in doc["attributes"].items()
        for s, e, score in (spans_of(value) or [])
    )
    assert got == expected and len(got) > 10


def test_views_over_several_files_restart_rows_per_file(corpus):
    connection = connection_for(str(corpus / "documents/*.jsonl.gz"), ["lengths", "random"])
    documents = records(connection, "SELECT id, file, row, length(text) AS n FROM documents")
    expected = {
        (str(path), line): doc["id"]
        for path in sorted((corpus / "documents").glob("*.jsonl.gz"))
        for line, doc in enumerate(read_jsonl(path), start=1)
    }
    assert {(r["file"], r["row"]): r["id"] for r in documents} == expected
    joined = records(connection, "SELECT a.file, a.row, a.id, d.n, a.exp__char_length_v1__length[1].score AS score FROM attributes a JOIN (SELECT id, file, row, length(text) AS n FROM documents) d USING (file, row)")
    assert len(joined) == 300 and all(r["score"] == r["n"] for r in joined)
    spans = records(connection, "SELECT file, row, id, attribute FROM spans WHERE attribute = 'exp__char_length_v1__length'")
    assert {(r["file"], r["row"]): r["id"] for r in spans} == expected


def test_attributes_view_has_the_keys_of_every_file_of_a_set(tmp_path, monkeypatch):
    """Keys first seen in a later file are columns too (read from the head of each later file, not the whole file)."""
    from dolma_sql.views import corpus

    monkeypatch.setattr(corpus, "HEAD_BYTES", 4096)
    lines_per_file = 200
    for index in range(3):
        documents = [{"id": f"{index}-{line}", "text": "x" * (line + 1), "source": "t"} for line in range(lines_per_file)]
        attributes = []
        for line, document in enumerate(documents):
            keys = {"a__first": [[0, 1, 1.0]]}
            if index == 1 and line == 2:
                keys["a__second_file"] = [[0, 1, 0.5]]
            if index == 2:
                keys["a__number"] = line
            if index == 2 and line == lines_per_file - 1:
                keys["a__too_deep"] = [[0, 1, 0.25]]  # far past HEAD_BYTES of a later file
            attributes.append({"id": document["id"], "attributes": keys})
        for folder, rows in (("documents", documents), ("attributes/a", attributes)):
            (tmp_path / folder).mkdir(parents=True, exist_ok=True)
            with gzip.open(tmp_path / folder / f"part-{index}.jsonl.gz", "wt") as handle:
                handle.writelines(json.dumps(row) + "\n" for row in rows)
    connection = connection_for(str(tmp_path / "documents/*.jsonl.gz"), ["a"])
    relation = connection.sql("SELECT * FROM attributes")
    types = dict(zip(relation.columns, map(str, relation.types)))
    assert list(types) == ["id", "file", "row", "a__first", "a__second_file", "a__number"]
    assert types["a__number"] == "DOUBLE" and types["a__second_file"].startswith("STRUCT(")
    rows = records(connection, "SELECT id, a__second_file[1].score AS score, a__number FROM attributes WHERE len(a__second_file) > 0 OR id = '2-7'")
    assert rows == [{"id": "1-2", "score": 0.5, "a__number": None}, {"id": "2-7", "score": None, "a__number": 7.0}]
    spans = records(connection, "SELECT id FROM spans WHERE attribute = 'a__too_deep'")
    assert spans == [{"id": f"2-{lines_per_file - 1}"}]  # the spans view has every key


def test_limit_queries_stream_without_reading_whole_files(corpus):
    """A LIMIT over documents/attributes is a streaming limit over the scan: no window, no sort, no join build."""
    connection = connection_for(str(corpus / "documents/*.jsonl.gz"), ["lengths", "random"])
    for query in ("SELECT id, text FROM documents LIMIT 3", "SELECT id, exp__random__spans FROM attributes LIMIT 3"):
        plan = connection.sql(f"EXPLAIN {query}").fetchall()[0][1]
        assert "Streaming Limit" in plan, plan
        blocking = plan.replace("Streaming Window", "")  # WITH ORDINALITY streams; a partitioned window would not
        assert "Window" not in blocking and "Order" not in blocking and "Hash Join" not in blocking, plan


# ------------------------------------------------------------------------------ the command
def test_sql_command_prints_a_table_and_exports(corpus, tmp_path):
    docs = str(corpus / "documents/*.jsonl.gz")
    query = "SELECT attribute, count(*) AS spans FROM spans GROUP BY attribute ORDER BY attribute"
    shown = cli(["sql", "--documents", docs, query])
    assert shown.returncode == 0, shown.stderr
    assert "exp__char_length_v1__length" in shown.stdout and "300" in shown.stdout
    out = {}
    for fmt, name in (("csv", "r.csv.gz"), ("json", "r.jsonl"), ("parquet", "r.parquet")):
        result = cli(["sql", "-d", docs, "-a", "lengths,random", "--format", fmt, "--output", str(tmp_path / name), query])
        assert result.returncode == 0, result.stderr
        out[fmt] = tmp_path / name
    assert not list(tmp_path.glob("**/*.tmp"))
    with gzip.open(out["csv"], "rt") as handle:
        csv_rows = [line.strip().split(",") for line in handle][1:]
    json_rows = [json.loads(line) for line in out["json"].read_text().splitlines()]
    parquet_rows = pq.read_table(out["parquet"]).to_pylist()
    assert [[r["attribute"], str(r["spans"])] for r in json_rows] == csv_rows
    assert parquet_rows == json_rows
    stdout = cli(["sql", "-d", docs, "--format", "json", query])
    assert [json.loads(line) for line in stdout.stdout.splitlines()] == json_rows


@pytest.mark.parametrize(
    "statement",
    [
        "COPY (SELECT 1) TO 'written.csv'",
        "ATTACH 'written.duckdb'",
        "INSTALL httpfs",
        "LOAD httpfs",
        "CREATE TABLE written AS SELECT 1",
        "INSERT INTO documents VALUES (1)",
        "DROP VIEW documents",
        "ALTER VIEW documents RENAME TO d",
        "SET temp_directory = 'elsewhere'",
        "PRAGMA enable_profiling",
        "EXPORT DATABASE 'written'",
        "CALL dbgen(sf = 0.01)",
        "CHECKPOINT",
        "EXPLAIN ANALYZE COPY (SELECT 1) TO 'written.csv'",
        "SELECT 1; COPY (SELECT 1) TO 'written.csv'",
        "UPDATE EXTENSIONS",  # a statement type the duckdb module has no name for
    ],
)
def test_statements_that_write_are_refused(statement):
    with pytest.raises(DolmaSqlError, match="refused|Parser Error"):
        check_read_only(statement)


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM documents LIMIT 1",
        "FROM documents SELECT id",
        "WITH d AS (SELECT 1) SELECT * FROM d UNION ALL SELECT 2",
        "DESCRIBE documents",
        "SUMMARIZE spans",
        "SHOW TABLES",
        "PRAGMA show_tables",
        "EXPLAIN SELECT 1",
        "PIVOT spans ON attribute USING count(*)",
    ],
)
def test_statements_that_only_read_are_allowed(statement):
    check_read_only(statement)


def test_writes_run_only_with_allow_write(corpus, tmp_path):
    docs = str(corpus / "documents/*.jsonl.gz")
    target = tmp_path / "copy.csv"
    statement = f"COPY (SELECT id FROM documents) TO '{target}'"
    refused = cli(["sql", "-d", docs, statement])
    assert refused.returncode == 1 and "refused" in refused.stderr and "--allow-write" in refused.stderr
    assert "Traceback" not in refused.stderr and not target.exists()
    elsewhere = cli(["sql", "-d", docs, "--allow-write", statement])  # writes go only where the command names
    assert elsewhere.returncode == 1 and "Permission Error" in elsewhere.stderr and "--allow-read" in elsewhere.stderr
    assert not target.exists()
    allowed = cli(["sql", "-d", docs, "--allow-write", "--allow-read", str(tmp_path), statement])
    assert allowed.returncode == 0, allowed.stderr
    assert len(target.read_text().splitlines()) == 301


def test_sql_errors_show_duckdb_message_without_traceback(corpus):
    result = cli(["sql", "-d", str(corpus / "documents/*.jsonl.gz"), "SELECT no_such_column FROM documents"])
    assert result.returncode == 1
    assert "no_such_column" in result.stderr and "Binder Error" in result.stderr
    assert "Traceback" not in result.stderr


def one_file_with_attributes(corpus: Path, root: Path, edit) -> Path:
    """The corpus's first document file under ``root``, with its ``lengths`` attribute lines as ``edit`` (a
    function of the list of raw lines) leaves them; the attribute file's path."""
    (root / "documents").mkdir(parents=True)
    first = sorted((corpus / "documents").glob("*.jsonl.gz"))[0]
    (root / "documents" / first.name).write_bytes(first.read_bytes())
    lines = gzip.decompress((corpus / "attributes" / "lengths" / first.name).read_bytes()).splitlines()
    attributes = root / "attributes" / "lengths" / first.name
    attributes.parent.mkdir(parents=True)
    attributes.write_bytes(gzip.compress(b"\n".join(edit(lines)) + b"\n"))
    return attributes


def test_misaligned_attributes_name_both_files_the_line_and_both_ids(corpus, tmp_path):
    bad = one_file_with_attributes(corpus, tmp_path, lambda lines: [*lines[:4], lines[5], lines[4], *lines[6:]])
    swapped = [json.loads(line)["id"] for line in gzip.decompress(bad.read_bytes()).splitlines()[4:6]]
    result = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "SELECT count(*) FROM attributes"])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    message = " ".join(result.stderr.split())
    assert f"{bad}:5" in message and str(tmp_path / "documents" / bad.name) in message
    assert swapped[0] in message and swapped[1] in message


def test_an_attribute_file_longer_than_its_documents_is_an_error(corpus, tmp_path):
    """A line past the last document cannot be dropped silently: the query fails naming it."""
    attributes = one_file_with_attributes(corpus, tmp_path, lambda lines: [*lines, lines[0]])
    result = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "SELECT count(*) FROM attributes"])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{attributes}:101: attribute line is not aligned" in " ".join(result.stderr.split()), result.stderr
    assert "ends at line 100" in result.stderr


@pytest.mark.parametrize("limit", [1, 100, 150, 299])
def test_a_query_that_stops_reading_early_is_not_taken_for_a_misalignment(corpus, limit):
    """A LIMIT stops the scan of the documents before the attribute files end (three files of 100 documents): the
    rows DuckDB pads past the documents then are no error, and the ids are the documents' own, in order."""
    result = cli(["sql", "-d", str(corpus / "documents/*.jsonl.gz"), "--format", "csv", f"SELECT id, file FROM attributes LIMIT {limit}"])
    assert result.returncode == 0, result.stderr
    expected = [(doc["id"], str(path)) for path in sorted((corpus / "documents").glob("*.jsonl.gz")) for doc in read_jsonl(path)][:limit]
    assert [tuple(row.split(",")) for row in result.stdout.split()[1:]] == expected


def test_an_attribute_file_shorter_than_its_documents_is_an_error(corpus, tmp_path):
    attributes = one_file_with_attributes(corpus, tmp_path, lambda lines: lines[:-1])
    result = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "SELECT count(*) FROM attributes"])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{attributes}:100: attribute line is not aligned" in " ".join(result.stderr.split()), result.stderr


def test_a_malformed_attribute_line_is_named_when_the_views_are_made(corpus, tmp_path):
    """The attribute keys are read before any query: a malformed line there is named as the other commands name it."""
    attributes = one_file_with_attributes(corpus, tmp_path, lambda lines: [*lines[:7], b"{oops", *lines[8:]])
    result = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "SELECT count(*) FROM documents"])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{attributes}:8: malformed JSON" in " ".join(result.stderr.split()), result.stderr


def test_an_output_that_cannot_be_a_file_is_one_clear_error_before_the_query(corpus, tmp_path):
    documents = str(corpus / "documents/*.jsonl.gz")
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("not a folder")
    for output, expected in ((tmp_path / "folder", "is a folder"), (tmp_path / "file" / "result.csv", "is not writable")):
        result = cli(["sql", "-d", documents, "--format", "csv", "--output", str(output), "SELECT id FROM documents"])
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith("error: --output:") and expected in result.stderr, result.stderr
    assert os.listdir(tmp_path / "folder") == [] and sorted(os.listdir(tmp_path)) == ["file", "folder"]
    failed = cli(["sql", "-d", documents, "--format", "csv", "--output", str(tmp_path / "new" / "deeper" / "result.csv"), "SELECT nope FROM documents"])
    assert failed.returncode == 1 and "nope" in failed.stderr
    assert sorted(os.listdir(tmp_path)) == ["file", "folder"], "a failed query leaves no folder it made behind"
    nested = tmp_path / "new" / "deeper" / "result.csv"
    made = cli(["sql", "-d", documents, "--format", "csv", "--output", str(nested), "SELECT count(*) AS n FROM documents"])
    assert made.returncode == 0, made.stderr
    assert nested.read_text().split() == ["n", "300"]


def test_a_set_that_covers_some_document_files_only_is_left_out_unless_named(corpus, tmp_path):
    """A set found beside the first document file (a MinHash run over one file) does not take every query down."""
    import shutil

    shutil.copytree(corpus, tmp_path / "corpus")
    partial = tmp_path / "corpus" / "attributes" / "partial"
    partial.mkdir()
    first = sorted((tmp_path / "corpus" / "documents").glob("*.jsonl.gz"))[0]
    shutil.copy(tmp_path / "corpus" / "attributes" / "lengths" / first.name, partial / first.name)
    documents = str(tmp_path / "corpus" / "documents" / "*.jsonl.gz")
    found = cli(["sql", "-d", documents, "--format", "csv", "SELECT count(*) AS n FROM attributes"])
    assert found.returncode == 0 and found.stdout.split() == ["n", "300"], found.stderr
    assert "attribute set 'partial' has no file for 2 of the 3 document files" in " ".join(found.stderr.split())
    named = cli(["sql", "-d", documents, "-a", "lengths,partial", "SELECT 1"])
    assert named.returncode == 1 and "Traceback" not in named.stderr
    assert "or leave it out (--attributes lengths)" in " ".join(named.stderr.split()), named.stderr


def test_missing_attribute_file_is_a_config_error(corpus, tmp_path):
    result = cli(["sql", "-d", str(corpus / "documents/*.jsonl.gz"), "-a", "nonexistent", "SELECT 1"])
    assert result.returncode == 1 and "nonexistent" in result.stderr and "Traceback" not in result.stderr


def test_database_file_keeps_the_views_for_any_duckdb_client(corpus, tmp_path):
    database = tmp_path / "corpus.duckdb"
    made = cli(["sql", "-d", str(corpus / "documents/*.jsonl.gz"), "--database", str(database), "SELECT count(*) FROM attributes"])
    assert made.returncode == 0, made.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    reopened = subprocess.run(
        [sys.executable, "-c", f"import duckdb; c = duckdb.connect('{database}', read_only=True); "
         "print(c.sql('SELECT count(*) FROM documents').fetchall()[0][0], c.sql('SELECT count(*) FROM spans').fetchall()[0][0])"],
        cwd=elsewhere, capture_output=True, text=True,
    )
    assert reopened.returncode == 0, reopened.stderr
    documents, spans = map(int, reopened.stdout.split())
    assert documents == 300 and spans >= 300
    again = cli(["sql", "--database", str(database), "SELECT count(*) AS n FROM documents", "--format", "csv"])
    assert again.returncode == 0 and again.stdout.split() == ["n", "300"]
    assert os.path.getsize(database) < 5_000_000  # views, not a copy of the corpus


def test_taggers_are_sql_functions(conformance):
    provided = conformance / "tests/data/provided"
    query = (
        "SELECT count(*) FILTER ((char_length_v1(text)->>'$.length[0][2]')::DOUBLE = length(text)) AS lengths_match, "
        "count(*) FILTER ((gopher_v1(text)->>'$.word_count[0][2]')::DOUBLE > 0) AS with_words, count(*) AS documents FROM documents"
    )
    result = cli(["sql", "-d", "documents/*.gz", "--format", "json", query], cwd=provided)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"lengths_match": 10, "with_words": 10, "documents": 10}


def test_a_tagger_that_needs_a_model_says_to_tag_with_it_instead(conformance):
    """``sql`` has no option to name a tagger's model: the error says so, not to pass an option it lacks."""
    provided = conformance / "tests/data/provided"
    result = cli(["sql", "-d", "documents/*.gz", "SELECT dclm_oh_eli5(text) FROM documents"], cwd=provided)
    message = " ".join(result.stderr.split())
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "tagger dclm-oh-eli5 cannot run as a SQL function: no fastText model" in message
    assert "tag the corpus with it (dolma-sql tag --taggers dclm-oh-eli5, pass --models.dclm_oh_eli5" in message


def test_tagger_modules_make_plugins_sql_functions(conformance):
    provided = conformance / "tests/data/provided"
    plugins = Path(__file__).parent / "plugins" / "upstream_style_taggers.py"
    query = "SELECT upstream_style_colliding_v1(text)->>'$.len_chars[0][1]' AS n FROM documents LIMIT 1"
    result = cli(["sql", "-d", "documents/*.gz", "--tagger_modules", str(plugins), "--format", "csv", query], cwd=provided)
    assert result.returncode == 0 and result.stdout.split()[0] == "n" and int(result.stdout.split()[1]) > 0, result.stderr


def test_tagger_functions_are_registered_when_a_query_calls_them():
    """Taggers load on demand: a query that calls none never imports them; an unknown function is DuckDB's error."""
    probe = (
        "import sys; from dolma_sql.query import execute; from dolma_sql.views import connect; "
        "c = connect(None); print(execute(c, 'SELECT 1', corpus=None, allow_write=False).fetchall(), 'dolma_sql.tagging' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["[(1,)]", "False"], result.stderr
    from dolma_sql.query import execute
    from dolma_sql.views import connect

    connection = connect(None)
    row = execute(connection, "SELECT CHAR_LENGTH_V1('abc')->>'$.length[0][2]' AS n", corpus=None, allow_write=False).fetchall()
    assert row == [("3.0",)]
    with pytest.raises(DolmaSqlError, match="no_such_function"):
        execute(connection, "SELECT no_such_function(1)", corpus=None, allow_write=False)


def test_zstd_compressed_corpus(conformance, tmp_path):
    import zstandard

    provided = conformance / "tests/data/provided"
    for source, target in (("documents/000.json.gz", "documents/000.jsonl.zst"), ("attributes/sample/000.json.gz", "attributes/sample/000.jsonl.zst")):
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / target).write_bytes(zstandard.ZstdCompressor().compress(gzip.decompress((provided / source).read_bytes())))
    connection = connection_for(str(tmp_path / "documents/*.zst"))
    rows = records(connection, "SELECT a.id, a.row, s.score FROM attributes a JOIN spans s USING (file, row) ORDER BY a.row")
    expected = read_jsonl(provided / "attributes/sample/000.json.gz")
    assert [(r["id"], r["row"], r["score"]) for r in rows] == [
        (doc["id"], line, doc["attributes"]["sample__random_number_v1__random"][0][2]) for line, doc in enumerate(expected, start=1)
    ]


# ------------------------------------------------------------------------------ issue 17: sql agrees with the other commands
def test_a_malformed_line_is_named_by_its_own_number(tmp_path):
    """DuckDB names the line after a malformed one; sql names the line itself, as mix, tag and dedupe do."""
    documents = [{"id": str(number), "text": f"text {number}", "source": "t"} for number in range(1, 61)]
    write_jsonl(tmp_path / "documents" / "000.jsonl.gz", documents)
    lines = [json.dumps(doc).encode() for doc in documents]
    lines[41] = b'{"id": "42", "text": "latin-1 \xe9t\xe9", "source": "t"}'
    (tmp_path / "documents" / "001.jsonl.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    result = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "SELECT count(text) FROM documents"])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{tmp_path / 'documents' / '001.jsonl.gz'}:42: invalid UTF-8" in " ".join(result.stderr.split()), result.stderr


def test_a_document_larger_than_duckdbs_json_limit_is_read(tmp_path):
    """DuckDB's reader accepts 16 MiB lines by default; sql raises its limit when a corpus needs it, as the other commands read any size."""
    documents = [{"id": "small", "text": "a", "source": "t"}, {"id": "large", "text": "x" * (40 << 20), "source": "t"}]
    write_jsonl(tmp_path / "documents" / "000.jsonl.gz", documents)
    query = "SELECT id, length(text) AS n FROM documents ORDER BY n"
    shown = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), query])
    assert shown.returncode == 0, shown.stderr
    assert "41943040" in shown.stdout
    exported = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "--format", "json", query])
    assert [json.loads(line) for line in exported.stdout.splitlines()] == [{"id": "small", "n": 1}, {"id": "large", "n": 40 << 20}], exported.stderr


def test_a_zero_byte_gzip_file_is_an_empty_file(tmp_path):
    documents = [{"id": str(number), "text": "t", "source": "t"} for number in range(3)]
    write_jsonl(tmp_path / "documents" / "000.jsonl.gz", documents)
    write_set(tmp_path, "a", documents, lambda doc: {"a__k": [[0, 1, 1.0]]})
    for empty in ("documents/001.jsonl.gz", "attributes/a/001.jsonl.gz"):
        (tmp_path / empty).touch()
    query = "SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM attributes) AS attributes, (SELECT count(*) FROM spans) AS spans"
    result = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "--format", "json", query])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"documents": 3, "attributes": 3, "spans": 3}
    alone = cli(["sql", "-d", str(tmp_path / "documents/001.jsonl.gz"), "-a", "", "--format", "csv", "SELECT count(*) AS n FROM documents"])
    assert alone.stdout.split() == ["n", "0"], alone.stderr


def test_a_span_key_a_row_lacks_is_an_empty_list(tmp_path):
    """pii_regex_v1 writes no key for a document without matches: that document has no spans ([]), not an unknown number (NULL)."""
    documents = [{"id": str(number), "text": "t", "source": "t"} for number in range(14)]
    write_jsonl(tmp_path / "documents" / "000.jsonl.gz", documents)
    write_set(tmp_path, "pii", documents, lambda doc: {"EMAIL": [[0, 1, 1.0]]} if doc["id"] == "3" else {"PHONE": []} if doc["id"] == "5" else {})
    connection = connection_for(str(tmp_path / "documents/*.gz"))
    share = connection.sql("SELECT avg((len(EMAIL) + len(PHONE) > 0)::INT) FROM attributes").fetchall()[0][0]
    assert share == pytest.approx(1 / 14)
    assert connection.sql("SELECT count(*) FROM attributes WHERE EMAIL = [] AND PHONE = []").fetchall() == [(13,)]


def test_sets_writing_the_same_key_keep_their_values_apart(tmp_path):
    documents = [{"id": str(number), "text": "t", "source": "t"} for number in range(2)]
    write_jsonl(tmp_path / "documents" / "000.jsonl.gz", documents)
    write_set(tmp_path, "old", documents, lambda doc: {"x__quality": [[0, 1, 0.1]], "x__only_old": [[0, 1, 0.5]]})
    write_set(tmp_path, "new", documents, lambda doc: {"x__quality": [[0, 1, 0.9]]})
    connection = connection_for(str(tmp_path / "documents/*.gz"))
    relation = connection.sql("SELECT * FROM attributes")
    assert relation.columns == ["id", "file", "row", "new__x__quality", "x__only_old", "old__x__quality"]
    scores = connection.sql("SELECT DISTINCT old__x__quality[1].score, new__x__quality[1].score FROM attributes").fetchall()
    assert scores == [(0.1, 0.9)]
    spans = connection.sql('SELECT "set", attribute, score, count(*) FROM spans GROUP BY ALL ORDER BY ALL').fetchall()
    assert spans == [("new", "x__quality", 0.9, 2), ("old", "x__only_old", 0.5, 2), ("old", "x__quality", 0.1, 2)]


def test_qualified_columns_that_still_clash_are_a_config_error(tmp_path):
    documents = [{"id": "0", "text": "t", "source": "t"}]
    write_jsonl(tmp_path / "documents" / "000.jsonl.gz", documents)
    write_set(tmp_path, "a", documents, lambda doc: {"k": 1})
    write_set(tmp_path, "b", documents, lambda doc: {"k": 2, "a__k": 3})
    with pytest.raises(ConfigError, match="a__k"):
        discover([str(tmp_path / "documents/*.gz")])


def test_recipe_span_macros_work_in_sql(tmp_path):
    """score, max_score and span_count, as recipe filters (syntax: sql) have them, over attribute columns and tagger output."""
    documents = [{"id": "0", "text": "four", "source": "t"}, {"id": "1", "text": "seven!!", "source": "t"}]
    write_jsonl(tmp_path / "documents" / "000.jsonl.gz", documents)
    write_set(tmp_path, "s", documents, lambda doc: {"s__k": [[0, 1, 0.2], [1, 2, 0.7]]} if doc["id"] == "0" else {})
    query = (
        "SELECT id, score(s__k) AS first, max_score(s__k) AS top, span_count(s__k) AS spans, "
        "score(char_length_v1(text)->'$.length') AS length FROM attributes JOIN documents USING (id) ORDER BY id"
    )
    result = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "--format", "json", query])
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"id": "0", "first": 0.2, "top": 0.7, "spans": 2, "length": 4.0},
        {"id": "1", "first": None, "top": None, "spans": 0, "length": 7.0},
    ]


def test_text_is_shown_as_written_not_as_emoji(corpus):
    """rich reads ``:name:`` as an emoji code: a value, or an error's ``file:100:``, must stay as it is."""
    shown = cli(["sql", "-d", str(corpus / "documents/*.jsonl.gz"), "SELECT ':smile: :100:' AS x"])
    assert shown.returncode == 0 and ":smile: :100:" in shown.stdout, shown.stdout
    failed = cli(["sql", "-d", str(corpus / "documents/*.jsonl.gz"), "SELECT * FROM nope_:100:"])
    assert failed.returncode == 1 and "nope_:100:" in failed.stderr, failed.stderr


def test_the_end_marker_is_known_by_its_file_not_its_id(tmp_path):
    """A document whose id is the marker line's is an ordinary document; an attribute line past the documents with
    that id is still one line too many."""
    from dolma_sql.views.statements import END_OF_FILES

    marker_id = json.loads(open(END_OF_FILES).read())["id"]
    documents = [{"id": "a", "text": "x"}, {"id": marker_id, "text": "y"}, {"id": "c", "text": "z"}]
    attributes = [{"id": doc["id"], "attributes": {"k": [[0, 1, 1.0]]}} for doc in documents]
    write_jsonl(tmp_path / "documents" / "0.jsonl.gz", documents)
    write_jsonl(tmp_path / "attributes" / "s" / "0.jsonl.gz", attributes)
    counted = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "--format", "csv", "SELECT count(*) AS n, count(*) FILTER (WHERE id = 'c') AS c FROM attributes"])
    assert counted.returncode == 0 and counted.stdout.split() == ["n,c", "3,1"], counted.stderr
    write_jsonl(tmp_path / "attributes" / "s" / "0.jsonl.gz", [*attributes, {"id": marker_id, "attributes": {}}])
    longer = cli(["sql", "-d", str(tmp_path / "documents/*.gz"), "SELECT count(*) FROM attributes"])
    assert longer.returncode == 1 and "0.jsonl.gz:4: attribute line is not aligned" in " ".join(longer.stderr.split()), longer.stderr


def test_a_database_saved_by_an_install_since_removed_says_so(corpus, tmp_path):
    import duckdb

    from dolma_sql.views.statements import END_OF_FILES

    database = tmp_path / "corpus.duckdb"
    assert cli(["sql", "-d", str(corpus / "documents/*.jsonl.gz"), "--database", str(database), "SELECT 1"]).returncode == 0
    elsewhere = tmp_path / "other-install" / "views_end.jsonl"
    elsewhere.parent.mkdir()
    shutil.copy(END_OF_FILES, elsewhere)
    with duckdb.connect(str(database)) as connection:  # as another install, at another path, would have saved it
        sql = connection.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'attributes'").fetchall()[0][0]
        connection.execute(sql.replace(END_OF_FILES, str(elsewhere)).replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1))
    shutil.rmtree(elsewhere.parent)  # that install is gone
    result = cli(["sql", "--database", str(database), "SELECT count(*) FROM attributes"])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "were saved by a dolma-sql installed elsewhere" in " ".join(result.stderr.split()) and "--documents GLOB --database FILE" in result.stderr
