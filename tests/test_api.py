"""The Python API: a small public surface (guarded here), one function per command taking the
command's config as a dict, that writes what the command line writes."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
from conftest import CONFORMANCE
from runtime_helpers import output_contents, run_cli

import dolma_sql
from dolma_sql.errors import ConfigError
from dolma_sql.runtime import SerialExecutor

PUBLIC = ["__version__", "corpus", "dedupe", "mix", "stat", "tag", "tokens"]
TOKENIZER = str(CONFORMANCE / "tests" / "data" / "tokenizer" / "gpt-neo-test-tokenizer.json")
TEXTS = ["The cat sat on the mat.\n\nIt was a sunny day.", "Buy now! Buy now! Buy now!", "The cat sat on the mat.\n\nAnother paragraph here."]


def test_the_public_names_are_exactly_these():
    assert sorted(dolma_sql.__all__) == PUBLIC
    assert sorted(name for name in vars(dolma_sql) if not name.startswith("_") and callable(getattr(dolma_sql, name))) == sorted(set(PUBLIC) - {"__version__"})


def test_importing_the_package_loads_no_engine():
    code = "import sys, dolma_sql; print(sorted(m for m in ('duckdb', 'pyarrow', 'polars', 'numpy') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


@pytest.fixture()
def corpus(tmp_path):
    documents = tmp_path / "documents"
    documents.mkdir()
    for part in range(2):
        rows = [{"id": f"{part}-{i}", "text": text, "source": "api", "metadata": {"url": f"https://x/{i}"}} for i, text in enumerate(TEXTS)]
        with gzip.open(documents / f"part-{part}.jsonl.gz", "wt") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)
    return tmp_path


def test_every_command_runs_from_a_dict_and_writes_what_the_command_line_writes(corpus, tmp_path):
    documents = str(corpus / "documents" / "*.jsonl.gz")
    counters = dolma_sql.tag({"documents": [documents], "taggers": ["char_length_v1"], "experiment": "len"}, executor=SerialExecutor())
    assert counters["documents"] == 6
    report = dolma_sql.dedupe({
        "documents": [documents],
        "dedupe": {"name": "dups", "paragraphs": {"attribute_name": "dup_paragraphs"}},
        "bloom_filter": {"file": str(tmp_path / "bloom.bin"), "read_only": False, "estimated_doc_count": 100, "desired_false_positive_rate": 1e-6},
    })
    assert report.as_dict()["documents"] == 6
    recipe = {"streams": [{
        "name": "kept", "documents": [documents], "attributes": ["len"],
        "output": {"path": str(tmp_path / "mixed"), "max_size_in_bytes": 1 << 20},
        "filter": {"exclude": ["$.attributes[?(@.len__char_length_v1__length && @.len__char_length_v1__length[0][2] < 30)]"]},
    }]}
    assert dolma_sql.mix(recipe).totals["documents_kept"] == 4
    impact = dolma_sql.mix(recipe, dry_run=True)
    assert impact["streams"][0]["kept"]["documents"] == 4
    summaries = dolma_sql.stat({"attributes": [str(corpus / "attributes" / "len")]})
    assert "len__char_length_v1__length/score" in {summary.name for summary in summaries}
    result = dolma_sql.tokens({"documents": [documents], "destination": str(tmp_path / "tokens"), "tokenizer": {"name_or_path": TOKENIZER, "eos_token_id": 50279, "pad_token_id": 1}})
    assert result.counters["documents"] == 6
    connection = dolma_sql.corpus([documents], ["len"])
    assert connection.execute("SELECT count(*) FROM documents").fetchone()[0] == 6

    recipe["streams"][0]["output"]["path"] = str(tmp_path / "mixed-by-cli")
    (tmp_path / "recipe.json").write_text(json.dumps(recipe))
    assert run_cli(["mix", str(tmp_path / "recipe.json")], corpus).returncode == 0
    assert output_contents(tmp_path / "mixed-by-cli") == output_contents(tmp_path / "mixed")


def test_a_bad_config_is_refused_before_any_work(tmp_path):
    with pytest.raises(ConfigError, match="streams"):
        dolma_sql.mix({"streams": [{"name": "s", "documents": [], "output": {"path": str(tmp_path / "out"), "max_size_in_bytes": 1}, "unknown": 1}]})
    assert not (tmp_path / "out").exists()


def test_one_name_where_a_list_is_expected_is_a_list_of_one_and_a_config_that_is_no_dict_is_refused(corpus):
    """``corpus("docs/*.gz", "len")``: a string is one glob and one set, not a sequence of characters."""
    dolma_sql.tag({"documents": [str(corpus / "documents" / "*.jsonl.gz")], "taggers": ["char_length_v1"], "experiment": "len"}, executor=SerialExecutor())
    connection = dolma_sql.corpus(str(corpus / "documents" / "*.jsonl.gz"), "len")
    assert connection.execute("SELECT count(*) FROM attributes").fetchone()[0] > 0
    for bad in (None, "config.yaml", ["streams"]):
        with pytest.raises(ConfigError, match="a config is a dict of dolma's keys or a TagConfig"):
            dolma_sql.tag(bad)
