"""Tagger plugins written for upstream dolma run unchanged, without dolma installed (issue 18, item 3).

The plugin of dolma's docs (docs/taggers.md, "Adding a New Tagger") and the plugins of
``tests/plugins/upstream_style_taggers.py`` are run by upstream dolma 1.2.1 and by dolma-sql from
the same files; the attribute files must be equal. dolma-sql runs as a subprocess with the
working tree first on ``PYTHONPATH`` (the same interpreter start-up as upstream's workers get).
"""

from __future__ import annotations

import gzip
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, run_oracle
from dolma_sql.errors import ConfigError
from dolma_sql.tagger.plugins import import_tagger_modules
from dolma_sql.tagger.upstream_plugins import upstream_imports
from dolma_sql.tagging import get_tagger, register_duckdb_functions
from tag_helpers import assert_same_attributes, conformance_documents, edge_documents, read_rows, write_jsonl_gz

PLUGINS = REPO / "tests" / "plugins" / "upstream_style_taggers.py"

DOCS_PLUGIN = '''import random

from dolma.core.data_types import DocResult, Document, Span
from dolma import add_tagger, BaseTagger

@add_tagger("new_random_number")
class RandomNumberTagger(BaseTagger):
    def predict(self, doc: Document) -> DocResult:
        # first, we generate a random number
        score = random.random()

        # we assign the random score to a span that
        # covers the entire document
        span = Span(
            start=0,
            end=len(doc.text),
            type="random",
            score=score
        )

        # we return the span wrapped in a DocResult object
        return DocResult(doc=doc, spans=[span])
'''
# Both interpreters start with random.random replaced by a counter, so the docs' plugin is deterministic.
COUNTING_RANDOM = "import itertools, random\n_count = itertools.count(1)\nrandom.random = lambda: (next(_count) * 0.6180339887498949) % 1.0\n"


def dolma_sql(args: list[str], cwd: Path, python_path: list[Path] = ()) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, [REPO, *python_path])))
    result = subprocess.run([sys.executable, "-m", "dolma_sql", *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def corpus(root: Path, documents: list[dict]) -> Path:
    write_jsonl_gz(root / "documents" / "d.jsonl.gz", documents)
    return root


@pytest.mark.oracle
@pytest.mark.parametrize("how", ["file", "module"])
def test_the_docs_plugin_runs_unchanged_and_equals_upstream(how, oracle, tmp_path, monkeypatch):
    plugins, startup = tmp_path / "plugins", tmp_path / "startup"
    plugins.mkdir()
    startup.mkdir()
    (plugins / "my_taggers.py").write_text(DOCS_PLUGIN)
    (startup / "sitecustomize.py").write_text(COUNTING_RANDOM)
    documents = [{"id": str(i), "text": "héllo wörld 😊 " * i, "source": "s"} for i in range(12)]
    upstream, mine = corpus(tmp_path / "up", documents), corpus(tmp_path / "mine", documents)
    # as docs/taggers.md: a file path, or a module name on PYTHONPATH
    module = str(plugins / "my_taggers.py") if how == "file" else "my_taggers"
    path = [startup, plugins] if how == "module" else [startup]
    args = ["tag", "--documents", "documents/*", "--taggers", "new_random_number", "--tagger_modules", module, "--processes", "1"]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(map(str, path)))
    run_oracle(oracle, args, cwd=upstream)
    dolma_sql(args, mine, path)
    name = "attributes/new_random_number/d.jsonl.gz"
    assert_same_attributes(upstream / name, mine / name, tolerance=0)
    assert len({row["attributes"]["new_random_number__new_random_number__random"][0][2] for row in read_rows(mine / name)}) == 12


@pytest.mark.oracle
def test_plugins_with_metadata_defaults_and_many_span_types_equal_upstream(oracle, tmp_path):
    documents = conformance_documents() + edge_documents(120, seed=5)
    upstream, mine = corpus(tmp_path / "up", documents), corpus(tmp_path / "mine", documents)
    args = ["tag", "--documents", "documents/*", "--taggers", "upstream_style_paragraphs_v1", "upstream_style_metadata_v1",
            "upstream_style_colliding_v1", "--tagger_modules", str(PLUGINS), "--experiment", "e", "--processes", "1"]
    run_oracle(oracle, args, cwd=upstream)
    dolma_sql(args, mine)
    assert_same_attributes(upstream / "attributes/e/d.jsonl.gz", mine / "attributes/e/d.jsonl.gz", tolerance=0)
    # the same bytes, key order included
    assert (upstream / "attributes/e/d.jsonl.gz").read_bytes() != b"" and read_rows(upstream / "attributes/e/d.jsonl.gz") == read_rows(mine / "attributes/e/d.jsonl.gz")
    lines = gzip.decompress((mine / "attributes/e/d.jsonl.gz").read_bytes()).splitlines()
    objects: list[list[str]] = []
    for line in lines:
        json.loads(line, object_pairs_hook=lambda pairs: objects.append([key for key, _ in pairs]) or dict(pairs))
    assert all(len(keys) == len(set(keys)) for keys in objects), "colliding span types make one key, not two (json.loads keeps the last)"


def test_plugins_run_in_worker_processes_one_instance_per_file(tmp_path):
    """Spawned workers import the plugin through the same stand-in; without an experiment each tagger has its folder."""
    for index in range(3):
        write_jsonl_gz(tmp_path / "documents" / f"{index}.jsonl.gz", edge_documents(30, seed=index))
    dolma_sql(["tag", "--documents", "documents/*", "--taggers", "upstream_style_paragraphs_v1", "upstream_style_metadata_v1",
               "--tagger_modules", str(PLUGINS), "--processes", "2"], tmp_path)
    rows = read_rows(tmp_path / "attributes/upstream_style_paragraphs_v1/2.jsonl.gz")
    assert len(rows) == len(edge_documents(30, seed=2)) and all("upstream_style_paragraphs_v1__upstream_style_paragraphs_v1__shouting" in row["attributes"] for row in rows)
    assert (tmp_path / "attributes/upstream_style_metadata_v1/0.jsonl.gz").exists()


@pytest.fixture()
def no_dolma_modules():
    """No ``dolma`` module imported during the test, and those imported before it back afterwards."""
    saved = {name: module for name, module in sys.modules.items() if name == "dolma" or name.startswith("dolma.")}
    for name in saved:
        del sys.modules[name]
    yield
    for name in [name for name in sys.modules if name == "dolma" or name.startswith("dolma.")]:
        del sys.modules[name]
    sys.modules.update(saved)


def test_dolma_resolves_only_while_tagger_modules_are_imported(no_dolma_modules):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("dolma")
    with upstream_imports():
        dolma = importlib.import_module("dolma")
        data_types = importlib.import_module("dolma.core.data_types")
        assert dolma.add_tagger and data_types.Span(0, 3, "x").score == 1.0
        with pytest.raises(ModuleNotFoundError, match="pip install dolma"):
            importlib.import_module("dolma.taggers.language")
    assert not any(type(finder).__name__ == "_CompatFinder" for finder in sys.meta_path)


def test_an_installed_dolma_is_never_shadowed(tmp_path, monkeypatch, no_dolma_modules):
    """A real ``dolma`` package on the path wins; plugin classes in its registry still become taggers."""
    package = tmp_path / "dolma"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text("REAL = True\nfrom dolma.core.registry import TaggerRegistry\nadd_tagger = TaggerRegistry.add\n")
    (package / "core" / "__init__.py").write_text("")
    (package / "core" / "registry.py").write_text(
        "class TaggerRegistry:\n    _all = {}\n    @classmethod\n    def add(cls, name):\n"
        "        def register(c):\n            cls._all[name] = c\n            return c\n        return register\n"
        "    @classmethod\n    def items(cls):\n        return sorted(cls._all.items())\n")
    (tmp_path / "real_plugin.py").write_text(
        "from dolma import add_tagger, REAL\n\n@add_tagger('real_dolma_plugin_v1')\nclass Tagger:\n"
        "    defaults = []\n    def tag(self, row):\n        return {'n': [(0, len(row.text), 2.0)]}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import_tagger_modules([str(tmp_path / "real_plugin.py")])
    assert sys.modules["dolma"].REAL
    import pyarrow as pa

    from dolma_sql.tagger.sql_functions import tag_texts

    assert tag_texts("real_dolma_plugin_v1", pa.array(["abc"])).to_pylist() == ['{"n":[[0,3,2.0]]}']


def test_plugin_taggers_are_sql_functions_too():
    import duckdb

    import_tagger_modules([str(PLUGINS)])
    connection = duckdb.connect()
    register_duckdb_functions(connection, ["upstream_style_paragraphs_v1", "upstream_style_metadata_v1"])
    row = connection.execute("SELECT upstream_style_paragraphs_v1('AB\nxy'), upstream_style_metadata_v1('abc', '{\"url\": \"u\"}')").fetchone()
    assert row == ('{"shouting":[[0,3,1.0]],"doc_length":[[0,5,5.0]],"vowels":[[3,5,0.0],[0,3,0.33333]]}', '{"has_url":[[0,3,1.0]]}')
    assert get_tagger("upstream_style_metadata_v1").needs[-1] == "metadata"


def test_a_plugin_needing_upstream_modules_says_what_to_install(tmp_path):
    (tmp_path / "needs_upstream.py").write_text("from dolma.taggers.language import Cld2LanguageTagger\n")
    with pytest.raises(ConfigError, match="pip install dolma"):
        import_tagger_modules([str(tmp_path / "needs_upstream.py")])


def test_the_documented_batch_tagger_example_runs(tmp_path):
    """The README's example of dolma-sql's own (batch) tagger API, as a user would save and run it."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    blocks = [block.split("```", 1)[0] for page in pages if page.exists() for block in page.read_text().split("```python\n")[1:]]
    example = next(block for block in blocks if '@tagger("vowels_v1"' in block)
    (tmp_path / "my_taggers.py").write_text(example)
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [{"id": "0", "text": "Banana split"}, {"id": "1", "text": ""}])
    dolma_sql(["tag", "--tagger_modules", "my_taggers.py", "--taggers", "vowels_v1", "--documents", "documents/*"], tmp_path)
    rows = read_rows(tmp_path / "attributes/vowels_v1/d.jsonl.gz")
    assert rows[0]["attributes"] == {"vowels_v1__vowels_v1__vowels": [[0, 12, 4.0]], "vowels_v1__vowels_v1__vowel_ratio": [[0, 12, 0.33333]]}
    assert rows[1]["attributes"] == {"vowels_v1__vowels_v1__vowels": [[0, 0, 0.0]], "vowels_v1__vowels_v1__vowel_ratio": [[0, 0, 0.0]]}


SIBLING_BASE = '''from dolma import BaseTagger, add_tagger
from dolma.core.data_types import DocResult, Span

@add_tagger("sibling_base_v1")
class Base(BaseTagger):
    def predict(self, doc):
        return DocResult(doc=doc, spans=[Span(start=0, end=len(doc.text), type="n", score=len(doc.text))])
'''
SIBLING_DERIVED = '''from dolma import add_tagger
from sibling_base import Base

@add_tagger("sibling_derived_v1")
class Derived(Base):
    pass
'''


def test_plugin_files_may_import_each_other_and_a_package_folder_is_a_module(tmp_path):
    """As upstream: each file is imported under its own name with its folder first on ``sys.path``, so a file that imports
    its neighbour shares its classes (before, the neighbour was imported twice and registered its tagger twice)."""
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "sibling_base.py").write_text(SIBLING_BASE)
    (tmp_path / "plugins" / "sibling_derived.py").write_text(SIBLING_DERIVED)
    (tmp_path / "plugins" / "folder_plugin").mkdir()
    (tmp_path / "plugins" / "folder_plugin" / "__init__.py").write_text(SIBLING_BASE.replace("sibling_base_v1", "folder_plugin_v1"))
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [{"id": "0", "text": "abc"}])
    dolma_sql(["tag", "--documents", "documents/*", "--taggers", "sibling_base_v1", "sibling_derived_v1", "folder_plugin_v1", "--experiment", "e",
               "--tagger_modules", "plugins/sibling_base.py", "plugins/sibling_derived.py", "plugins/folder_plugin"], tmp_path)
    assert read_rows(tmp_path / "attributes/e/d.jsonl.gz")[0]["attributes"] == {
        "e__sibling_base_v1__n": [[0, 3, 3.0]], "e__sibling_derived_v1__n": [[0, 3, 3.0]], "e__folder_plugin_v1__n": [[0, 3, 3.0]]
    }


@pytest.mark.parametrize(
    "source,says",
    [
        ("def broken(:\n", "SyntaxError"),
        ("from dolma import BaseTagger, add_tagger\n@add_tagger('char_length_v1')\nclass Mine(BaseTagger):\n    pass\n", "already registered"),
        ("import os\n\nraise RuntimeError('no model here')\n", "RuntimeError: no model here"),
    ],
    ids=["syntax", "builtin-name", "raises"],
)
def test_a_plugin_that_fails_to_import_is_a_config_error_naming_its_line(tmp_path, source, says):
    (tmp_path / "failing_plugin.py").write_text(source)
    with pytest.raises(ConfigError, match=says) as error:
        import_tagger_modules([str(tmp_path / "failing_plugin.py")])
    assert error.value.path == "tagger_modules" and f"{tmp_path / 'failing_plugin.py'}:" in error.value.hint


def test_a_plugin_that_raises_on_a_document_is_named_with_where_it_raised(tmp_path):
    (tmp_path / "raising_plugin.py").write_text(
        "from dolma import BaseTagger, add_tagger\nfrom dolma.core.data_types import DocResult\n\n@add_tagger('raising_v1')\nclass Raising(BaseTagger):\n"
        "    def predict(self, doc):\n        if doc.id == '1':\n            raise ValueError('cannot handle ' + doc.id)\n        return DocResult(doc=doc, spans=[])\n"
    )
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [{"id": "0", "text": "a"}, {"id": "1", "text": "b"}])
    result = subprocess.run(
        [sys.executable, "-m", "dolma_sql", "tag", "--documents", "documents/*", "--taggers", "char_length_v1", "raising_v1", "--tagger_modules", "raising_plugin.py"],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=300,
    )
    message = " ".join(result.stderr.split())
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "tagger raising_v1 failed in lines 1-2: ValueError('cannot handle 1')" in message
    assert f"it raised at {tmp_path / 'raising_plugin.py'}:8" in message
