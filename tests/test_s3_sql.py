"""``sql`` and ``shell`` over a corpus on the S3 server: DuckDB reads it through the storage layer's fsspec
filesystem (no extension downloaded), the sandbox allows the corpus's URLs and nothing else, and no
credential can be read from SQL."""

from __future__ import annotations

import csv
import io
import uuid
from pathlib import Path

import fsspec
import pytest
from s3_helpers import cli, ok, write_corpus

QUERIES = {
    "documents": "SELECT id, row, length(text) AS n, metadata->>'url' AS url, file FROM documents ORDER BY file, row",
    "attributes": "SELECT id, row, score, pii, file FROM attributes ORDER BY file, row",
    "spans": "SELECT id, row, set, attribute, start, \"end\", score, file FROM spans ORDER BY file, row, attribute, start",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, s3_server) -> tuple[Path, str]:
    local = write_corpus(tmp_path_factory.mktemp("s3-sql") / "corpus", docs=120, files=2)
    remote = f"s3://{s3_server.new_bucket()}/corpus-{uuid.uuid4().hex[:6]}"
    s3_server.upload(local, remote)
    return local, remote


def query(sql: str, documents: str, cwd: Path, *extra: str, env: dict | None = None) -> list[list[str]]:
    result = ok(cli(["sql", sql, "-d", documents, "--format", "csv", *extra], cwd, env=env))
    return list(csv.reader(io.StringIO(result.stdout)))


@pytest.mark.parametrize("view", sorted(QUERIES))
def test_views_over_s3_equal_views_over_local_files(corpus, tmp_path, view):
    local, remote = corpus
    here = query(QUERIES[view], f"{local}/documents/*.gz", tmp_path)
    there = query(QUERIES[view], f"{remote}/documents/*.gz", tmp_path)
    assert len(here) > 100
    assert [[cell.replace(str(local), "ROOT") for cell in row] for row in here] == [[cell.replace(remote, "ROOT") for cell in row] for row in there]


def test_results_go_to_s3_and_saved_views_reopen(corpus, tmp_path):
    _, remote = corpus
    count = "SELECT count(*) AS n FROM documents"
    ok(cli(["sql", count, "-d", f"{remote}/documents/*.gz", "--format", "csv", "--output", f"{remote}/results/count.csv.gz"], tmp_path))
    assert fsspec.open(f"{remote}/results/count.csv.gz", "rt", compression="gzip").open().read().split() == ["n", "120"]
    ok(cli(["sql", count, "-d", f"{remote}/documents/*.gz", "--database", str(tmp_path / "views.duckdb")], tmp_path))
    reopened = ok(cli(["sql", count, "--database", str(tmp_path / "views.duckdb"), "--format", "csv"], tmp_path))
    assert reopened.stdout.split() == ["n", "120"]


def test_the_shell_reads_a_corpus_on_s3(corpus, tmp_path):
    _, remote = corpus
    session = "SELECT count(*) AS documents_on_s3 FROM documents;\n.quit\n"
    result = ok(cli(["shell", "-d", f"{remote}/documents/*.gz"], tmp_path, env={"DOLMA_SQL_HISTORY": str(tmp_path / "history")}, input=session))
    assert "documents_on_s3" in result.stdout and "120" in result.stdout


def shell(statements: list[str], documents: str, cwd: Path, *extra: str, env: dict | None = None) -> list[str]:
    """The errors of a shell session that runs ``statements`` (it prints each error and goes on)."""
    session = "".join(f"{statement};\n" for statement in statements) + ".quit\n"
    result = ok(cli(["shell", "-d", documents, *extra], cwd, env={"DOLMA_SQL_HISTORY": str(cwd / "history"), **(env or {})}, input=session))
    return ["".join(error.split()) for error in result.stdout.split("dolma-sql> ")[1:] if error.startswith("error:")]  # unwrapped


def test_no_extension_is_downloaded_and_no_other_object_is_readable(corpus, tmp_path, s3_server):
    _, remote = corpus
    documents = f"{remote}/documents/*.gz"
    home = tmp_path / "home"  # where DuckDB would install an extension it downloads
    home.mkdir()
    assert query("SELECT count(*) AS n FROM documents", documents, tmp_path, env={"HOME": str(home)}) == [["n"], ["120"]]
    assert not list(home.rglob("*httpfs*")), "no extension was downloaded: the storage layer's filesystem read the corpus"
    other = f"s3://{s3_server.new_bucket()}/private.txt"
    fsspec.filesystem("s3").pipe_file(other.removeprefix("s3://"), b"not for SQL\n")
    outside = [other, f"{remote}/attributes/a/part-0000.jsonl.gz", f"{remote}/attributes/a/*.gz", f"{remote.rsplit('/', 1)[0]}/**", f"{remote}/documents/../attributes/a/part-0000.jsonl.gz"]
    errors = shell([f"SELECT * FROM read_text('{url}')" for url in outside], documents, tmp_path, "--attributes", "")
    assert len(errors) == len(outside) and all(f'PermissionError:Cannotaccessfile"{url}"' in error for error, url in zip(errors, outside)), errors
    refused = cli(["sql", f"SELECT * FROM read_text('{other}')", "-d", documents], tmp_path)
    assert refused.returncode == 1 and "Permission Error" in refused.stderr and "Traceback" not in refused.stderr
    assert query(f"SELECT content FROM read_text('{other}')", documents, tmp_path, "--allow-read", other) == [["content"], ["not for SQL\n"]]


def test_credentials_cannot_be_read_from_sql(corpus, tmp_path, s3_server):
    """Credentials from ``~/.aws`` (and, in a second session, from the environment) stay in Python."""
    _, remote = corpus
    key, secret = s3_server.environment["AWS_ACCESS_KEY_ID"], s3_server.environment["AWS_SECRET_ACCESS_KEY"]
    aws = tmp_path / "home" / ".aws"
    aws.mkdir(parents=True)
    (aws / "credentials").write_text(f"[default]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n")
    attempts = [
        "SELECT current_setting('s3_secret_access_key')",
        "SELECT current_setting('s3_access_key_id')",
        "SELECT * FROM duckdb_secrets()",
        "SELECT getenv('AWS_SECRET_ACCESS_KEY')",
        f"SELECT * FROM read_text('{aws / 'credentials'}')",
        "SELECT * FROM read_text('~/.aws/credentials')",
        f"SELECT * FROM read_csv('{aws}/*', header = false)",
        "SELECT * FROM read_text('/proc/self/environ')",
        "SET lock_configuration = false",
    ]
    from_files = {"HOME": str(tmp_path / "home"), "AWS_ACCESS_KEY_ID": None, "AWS_SECRET_ACCESS_KEY": None}
    for env in (from_files, {}):
        errors = shell([*attempts, "SELECT name, value FROM duckdb_settings() WHERE value LIKE '%s3%'"], f"{remote}/documents/*.gz", tmp_path,
                       "--attributes", "", env=env)  # fmt: skip
        assert len(errors) == len(attempts), errors
        assert all(("PermissionError" in error or "CatalogError" in error or "refused" in error) for error in errors), errors
        assert not any(secret in error or key in error for error in errors)
        settings = query("SELECT name, value FROM duckdb_settings()", f"{remote}/documents/*.gz", tmp_path, env=env)
        assert f"{remote}/documents/part-0001.jsonl.gz" in dict(settings[1:])["allowed_paths"]
        assert not any(secret in value or key in value for _, value in settings)
