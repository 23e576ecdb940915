"""The sandbox of ``dolma-sql sql`` and ``shell``: DuckDB's own settings, not the read-only guard, keep
queries to the corpus files, away from the network and extensions, with settings locked.

Every case runs through ``sql`` and through the shell on a terminal, each over the documents and over
a saved ``--database``, once with the guard and once with ``--allow-write`` (the guard off: the engine
alone). Each must be refused cleanly, leave no file behind or changed, and never show the secret kept
beside the corpus. No case reaches beyond 127.0.0.1: extension installs are off before the first query.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from dolma_sql.query import open_sandboxed
from test_shell import Terminal
from test_sql import write_jsonl

SECRET = "TOPSECRET-5f0c2a"

CASES = {
    "enable_logging to a new file": (
        "FROM enable_logging(level='trace', storage='file', storage_path='{outside}.csv', storage_config={{'normalize': false}}); "
        "SELECT write_log('ARBITRARY', level := 'error', log_type := 'x')"
    ),
    "enable_logging over an existing file": (
        "FROM enable_logging(level='trace', storage='file', storage_path='{secret}', storage_config={{'normalize': false}}); "
        "SELECT write_log('ARBITRARY', level := 'error', log_type := 'x')"
    ),
    "CALL enable_logging": "CALL enable_logging(level='trace', storage='file', storage_path='{outside}.csv')",
    "read_csv over http": "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
    "read_csv over https": "SELECT * FROM read_csv('https://127.0.0.1:9/x.csv')",
    "read_csv over s3": "SELECT * FROM read_csv('s3://bucket/x.csv')",
    "sqlite_scan": "SELECT * FROM sqlite_scan('{secret}', 't')",
    "delta_scan": "SELECT * FROM delta_scan('{outside}')",
    "iceberg_scan": "SELECT * FROM iceberg_scan('{outside}')",
    "read_text": "SELECT * FROM read_text('{secret}')",
    "read_blob": "SELECT * FROM read_blob('{secret}')",
    "glob": "SELECT * FROM glob('{root}/**')",
    "a path as a table": "FROM '{secret}'",
    "read_csv": "SELECT * FROM read_csv('{secret}')",
    "read_csv_auto": "SELECT * FROM read_csv_auto('{secret}')",
    "read_json": "SELECT * FROM read_json('{secret}')",
    "read_json_auto": "SELECT * FROM read_json_auto('{secret}')",
    "read_ndjson": "SELECT * FROM read_ndjson('{secret}')",
    "read_parquet": "SELECT * FROM read_parquet('{secret}')",
    "parquet_scan": "SELECT * FROM parquet_scan('{secret}')",
    "query": "SELECT * FROM query('SELECT * FROM read_text(''{secret}'')')",
    "query_table": "SELECT * FROM query_table('{secret}')",
    "COPY TO": "COPY (SELECT 1) TO '{outside}'",
    "EXPORT DATABASE": "EXPORT DATABASE '{outside}'",
    "ATTACH": "ATTACH '{outside}.duckdb' AS other",
    "INSTALL": "INSTALL httpfs",
    "LOAD": "LOAD httpfs",
    "SET": "SET enable_external_access = true",
    "SET allowed_directories": "SET allowed_directories = ['/']",
    "RESET": "RESET lock_configuration",
    "PRAGMA": "PRAGMA enable_profiling",
    "UPDATE EXTENSIONS": "UPDATE EXTENSIONS",
    "duckdb_secrets()": "SELECT * FROM duckdb_secrets()",
    "current_setting of a credential": "SELECT current_setting('s3_secret_access_key')",
}


class Site:
    """A corpus, a secret file beside it, a home folder and a working folder, all in one temporary folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.secret = root / "secret.txt"
        self.outside = root / "written"
        self.home = root / "home"
        self.work = root / "work"
        self.documents = root / "corpus" / "documents" / "000.jsonl.gz"
        self.database = root / "corpus.duckdb"

    def fill(self, sql: str) -> str:
        return sql.format(secret=self.secret, outside=self.outside, root=self.root)

    def files(self) -> dict[str, bytes]:
        """Every file under the root but the shell's history."""
        paths = (path for path in sorted(self.root.rglob("*")) if path.is_file() and path.name != "history")
        return {str(path.relative_to(self.root)): path.read_bytes() for path in paths}

    def env(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.home), "NO_COLOR": "1", "COLUMNS": "160", "DOLMA_SQL_HISTORY": str(self.root / "history")}

    def cli(self, args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-P", "-m", "dolma_sql", *args], cwd=self.work, env=self.env(), capture_output=True, text=True, timeout=300
        )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Site:
    site = Site(tmp_path_factory.mktemp("sandbox"))
    documents = [{"id": str(index), "text": f"document {index} " * (index + 1), "source": "test"} for index in range(5)]
    write_jsonl(site.documents, documents)
    spans = [{"id": doc["id"], "attributes": {"t__pii__email": [[0, 8, 1.0]] if doc["id"] == "2" else []}} for doc in documents]
    write_jsonl(site.root / "corpus" / "attributes" / "pii" / "000.jsonl.gz", spans)
    site.secret.write_text(SECRET + "\n")
    site.home.mkdir()
    site.work.mkdir()
    made = site.cli(["sql", "-d", str(site.documents), "--database", str(site.database), "SELECT count(*) FROM attributes"])
    assert made.returncode == 0, made.stderr
    return site


def assert_untouched(site: Site, before: dict[str, bytes], output: str) -> None:
    """Nothing was written (a database opened for writing may rewrite its own file), nothing outside the corpus was read into the output."""
    after = site.files()
    assert after.keys() == before.keys(), set(after) ^ set(before)
    assert all(after[name] == content for name, content in before.items() if not name.endswith(".duckdb"))
    assert SECRET not in output
    assert not (site.home / ".duckdb").exists()  # no extension was installed


# ------------------------------------------------------------------------------ refused everywhere
SOURCES = {
    "documents": lambda site: ["-d", str(site.documents)],
    "database-allow-write": lambda site: ["--database", str(site.database), "--allow-write"],
}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("case", CASES)
def test_the_command_refuses(site, source, case):
    before = site.files()
    result = site.cli(["sql", *SOURCES[source](site), site.fill(CASES[case])])
    output = result.stdout + result.stderr
    assert result.returncode == 1, output  # an error, not a crash (134) nor a success
    assert result.stderr.startswith("error:") and "Traceback" not in output, output
    assert_untouched(site, before, output)


SHELL_SOURCES = {
    "documents-allow-write": lambda site: ["-d", str(site.documents), "--allow-write"],
    "database": lambda site: ["--database", str(site.database)],
}


@pytest.mark.parametrize("source", SHELL_SOURCES)
def test_the_shell_refuses(site, source):
    before = site.files()
    shell = Terminal(["shell", *SHELL_SOURCES[source](site)], cwd=site.work, env={**site.env(), "TERM": "xterm"})
    outputs = []
    try:
        shell.expect("dolma-sql> ")
        for case, sql in CASES.items():
            shell.send(site.fill(sql) + ";\r")
            output = shell.expect("dolma-sql> ")
            assert "error:" in output and "Traceback" not in output, (case, output)
            outputs.append(output)
        shell.send("SELECT count(*) AS documents FROM documents;\r")
        assert "5" in shell.expect("dolma-sql> ")  # the session survived every refusal
        shell.send(".quit\r")
        assert shell.wait() == 0
    finally:
        shell.kill()
    assert_untouched(site, before, "".join(outputs))


# ------------------------------------------------------------------------------ what stays possible
def test_the_corpus_views_stay_readable_and_the_settings_locked(site):
    query = (
        "SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM attributes) AS attributes, "
        "(SELECT count(*) FROM spans) AS spans, current_setting('enable_external_access') AS external, "
        "current_setting('autoinstall_known_extensions') AS autoinstall, current_setting('lock_configuration') AS locked"
    )
    for source in (["-d", str(site.documents)], ["--database", str(site.database)]):
        result = site.cli(["sql", *source, "--format", "json", query])
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == {"documents": 5, "attributes": 5, "spans": 1, "external": False, "autoinstall": False, "locked": True}


def test_allow_read_widens_what_sql_may_read(site):
    file_query = f"SELECT content FROM read_text('{site.secret}')"
    read = site.cli(["sql", "-d", str(site.documents), "--allow-read", str(site.secret), "--format", "json", file_query])
    assert json.loads(read.stdout) == {"content": SECRET + "\n"}, read.stderr
    folder_query = f"SELECT count(*) AS n FROM glob('{site.root}/*.txt')"
    listed = site.cli(["sql", "-d", str(site.documents), "--allow-read", str(site.root), "--format", "csv", folder_query])
    assert listed.stdout.split() == ["n", "1"], listed.stderr
    other = site.cli(["sql", "-d", str(site.documents), "--allow-read", str(site.home), file_query])
    assert other.returncode == 1 and SECRET not in other.stdout + other.stderr


def test_allow_write_creates_tables_in_the_database_only(tmp_path, site):
    database = tmp_path / "copy.duckdb"
    database.write_bytes(site.database.read_bytes())
    created = site.cli(["sql", "--database", str(database), "--allow-write", "CREATE TABLE lengths AS SELECT id, length(text) AS n FROM documents"])
    assert created.returncode == 0, created.stderr
    again = site.cli(["sql", "--database", str(database), "--format", "csv", "SELECT count(*) AS n FROM lengths"])
    assert again.stdout.split() == ["n", "5"], again.stderr


def test_a_database_opened_without_allow_write_is_read_only_in_the_engine(tmp_path, site):
    """Even a write the guard never sees (here: the guard is skipped) is refused by DuckDB itself."""
    database = tmp_path / "copy.duckdb"
    database.write_bytes(site.database.read_bytes())
    connection, _ = open_sandboxed(None, None, database=str(database), threads=None, allow_write=False)
    with pytest.raises(duckdb.Error, match="read-only"):
        connection.execute("CREATE TABLE written AS SELECT 1")
    with pytest.raises(duckdb.Error, match="locked"):
        connection.execute("SET access_mode = 'READ_WRITE'")
    assert connection.execute("SELECT count(*) FROM documents").fetchall() == [(5,)]


def test_taggers_and_span_macros_work_inside_the_sandbox(site):
    query = (
        "SELECT sum(score(char_length_v1(text)->'$.length')) = sum(length(text)) AS tagged, "
        "sum(span_count(t__pii__email)) AS emails, max(max_score(t__pii__email)) AS top FROM attributes JOIN documents USING (id)"
    )
    result = site.cli(["sql", "-d", str(site.documents), "--format", "json", query])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"tagged": True, "emails": 1, "top": 1.0}


# ------------------------------------------------------------------------------ a recipe's SQL filters
ESCAPES = {
    "read through a quoted type": """CAST(1 AS "VARINT) IS NULL OR error((SELECT string_agg(content, '') FROM read_text('{secret}'))) OR CAST(1 AS INT") IS NULL""",
    "write through a quoted type": """CAST(1 AS "VARINT) IS NULL), FALSE); COPY (SELECT 1 AS x) TO '{outside}'; SELECT 1 --") IS NULL""",
}


@pytest.mark.parametrize("flags", [["--explain"], ["--dry-run"], []], ids=["explain", "dry-run", "mix"])
@pytest.mark.parametrize("escape", ESCAPES)
def test_a_recipe_filter_cannot_leave_its_expression(site, escape, flags):
    """A SQL filter is refused as it loads, with the rule's place in the recipe, before any statement runs."""
    recipe = site.root / "recipe.yaml"
    stream = {"name": "s", "documents": [str(site.documents)], "output": {"path": str(site.root / "mixed")},
              "filter": {"syntax": "sql", "exclude": [site.fill(ESCAPES[escape])]}}
    recipe.write_text(json.dumps({"streams": [stream]}))
    before = site.files()
    result = site.cli(["mix", str(recipe), *flags])
    recipe.unlink()
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "streams[0].filter.exclude[0]: unknown type `VARINT) IS NULL" in result.stderr
    assert_untouched(site, {name: data for name, data in before.items() if name != "recipe.yaml"}, result.stdout + result.stderr)


@pytest.mark.parametrize("connection", ["mixer", "finite-values check", "sealed"])
def test_the_connections_that_run_a_recipe_reach_no_file(site, connection):
    """The engine refuses what the recipe compiler would have to miss: the mixer's connections read only the batches
    given to them, and keep their settings."""
    from dolma_sql.engine import sealed_connection
    from dolma_sql.mixer import finite, shard

    opened = {"mixer": shard.process_connection, "finite-values check": finite._connection, "sealed": sealed_connection}[connection]()
    for sql in [f"SELECT * FROM read_text('{site.secret}')", f"COPY (SELECT 1) TO '{site.outside}'", "SET enable_external_access = true",
                "RESET lock_configuration", "INSTALL httpfs", f"ATTACH '{site.outside}.duckdb'"]:
        with pytest.raises(duckdb.Error, match="disabled by configuration|configuration has been locked"):
            opened.execute(sql)
    assert not site.outside.exists()


def test_queries_spill_to_a_folder_of_their_own(site):
    """DuckDB's default spill folder, ``.tmp`` in the working folder, would be readable by queries; the sandbox's own is
    private, removed at exit, and takes what a query past ``--memory-limit`` spills."""
    planted = site.work / ".tmp" / "note.txt"
    planted.parent.mkdir(exist_ok=True)
    planted.write_text(SECRET)
    read = site.cli(["sql", "-d", str(site.documents), f"SELECT content FROM read_text('{planted}')"])
    assert read.returncode == 1 and SECRET not in read.stdout + read.stderr and "Traceback" not in read.stderr
    folder = site.cli(["sql", "-d", str(site.documents), "--format", "csv", "SELECT current_setting('temp_directory') AS t"]).stdout.split()[1]
    assert "dolma-sql-spill-" in folder and not os.path.exists(folder)
    spilled = site.cli(["sql", "-d", str(site.documents), "--memory-limit", "60MB", "--format", "csv",
                        "SELECT count(*) AS n FROM (SELECT i FROM range(20000000) t(i) ORDER BY i DESC)"])
    assert spilled.returncode == 0 and spilled.stdout.split() == ["n", "20000000"], spilled.stderr
    for limit in ("lots", "1KB"):
        refused = site.cli(["sql", "-d", str(site.documents), "--memory-limit", limit, "SELECT 1"])
        assert refused.returncode == 1 and refused.stderr.startswith("error: --memory-limit:") and "Traceback" not in refused.stderr
    short = site.cli(["sql", "-d", str(site.documents), "--memory-limit", "20MB", "SELECT list(i) FROM range(20000000) t(i)"])
    assert short.returncode == 1 and "Out of Memory" in short.stderr and "raise --memory-limit" in short.stderr and "SET memory_limit" not in short.stderr


def test_a_config_field_name_is_never_read_as_sql(site, tmp_path):
    """Field names (tokens' fields.*, MinHash's keep.field, dedupe's keys) reach a DuckDB query as quoted names and
    string literals on a sealed connection: one made to close the quote is a missing field, and writes nothing."""
    from dolma_sql.errors import InputError
    from dolma_sql.formats.documents import iter_document_batches

    target = tmp_path / "written.csv"
    for name in [f'x" FROM (SELECT [1,2,3] AS v); COPY (SELECT 42 AS pwned) TO $${target}$$ (FORMAT csv); SELECT 1 AS "y',
                 f"x' FROM (SELECT 1); COPY (SELECT 42) TO '{target}'; SELECT '"]:
        with pytest.raises(InputError, match="has no string field"):
            list(iter_document_batches(str(site.documents), fields=("id", name), required=(name,)))
        rows = next(iter_document_batches(str(site.documents), fields=("id", name), required=("id",)))
        assert rows.table.column(name).null_count == rows.table.num_rows
    assert not target.exists()
