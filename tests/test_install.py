"""A plain ``pip install`` of the project gives the main taggers, offline (issue 18, item 2).

One fresh venv per session (``python -m venv`` + ``pip install <copy of the repo>``; pip may use
the machine's wheel cache): slow, so every check here shares it. The tag runs set
``HF_HUB_OFFLINE=1`` and, where the machine allows, run without any network (``unshare -n``).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.install

TAGGERS = ["cld2_en_paragraph_with_doc_score_v2", "ft_lang_id_en_paragraph_with_doc_score_v2", "uniseg_length_paragraphs_v1"]
NOT_SHIPPED = shutil.ignore_patterns(".git", ".oracle", "build", "dist", "*.egg-info", "__pycache__", ".cache", ".benchmarks",
                                     ".hypothesis", ".pytest_cache", "tests", ".venv")


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Path:
    """The ``bin`` folder of a fresh venv holding a plain (non-editable) ``pip install`` of the repository."""
    root = tmp_path_factory.mktemp("install")
    source = root / "source"
    shutil.copytree(REPO, source, ignore=NOT_SHIPPED)  # a copy: pip's in-tree build leaves files behind
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, capture_output=True)
    pip = subprocess.run([str(root / "venv/bin/python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)],
                         capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return root / "venv" / "bin"


def offline(command: list[str]) -> list[str]:
    """``command`` in a network namespace of its own (no network at all) when the machine allows it."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n", *command]
    return command


def run(bin_dir: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment.update(HF_HUB_OFFLINE="1", PATH=f"{bin_dir}{os.pathsep}{environment.get('PATH', '')}")
    return subprocess.run(offline([str(bin_dir / "dolma-sql"), *args]), cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)


def write_documents(folder: Path) -> None:
    texts = ["The weather is lovely today and we will walk to the park.\nCeci est une phrase en français.\n\nAnd one more line in English.",
             "", "Hallo Welt, wie geht es dir heute?"]
    (folder / "documents").mkdir(parents=True)
    with gzip.open(folder / "documents" / "d.jsonl.gz", "wt", encoding="utf-8") as handle:
        for index, text in enumerate(texts):
            handle.write(json.dumps({"id": str(index), "text": text, "source": "s"}) + "\n")


def test_plain_install_tags_with_the_main_taggers_offline(installed, tmp_path):
    write_documents(tmp_path)
    result = run(installed, ["tag", "--documents", "documents/*.jsonl.gz", "--taggers", *TAGGERS, "--experiment", "e"], tmp_path)
    assert result.returncode == 0, result.stderr
    with gzip.open(tmp_path / "attributes/e/d.jsonl.gz", "rt") as handle:
        rows = [json.loads(line) for line in handle]
    first = rows[0]["attributes"]
    assert first["e__cld2_en_paragraph_with_doc_score_v2__en"][0][2] > 0.9
    assert first["e__ft_lang_id_en_paragraph_with_doc_score_v2__en"][0][2] > 0.5  # the shipped lid.176.ftz
    assert first["e__ft_lang_id_en_paragraph_with_doc_score_v2__not_en"][1][2] > 0.5
    assert [span[2] for span in first["e__uniseg_length_paragraphs_v1__paragraph"]] == [13.0, 7.0, 7.0]
    assert rows[2]["attributes"]["e__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"][0][2] < 0.5


def test_plain_install_runs_an_upstream_style_plugin(installed, tmp_path):
    """``from dolma import …`` resolves to dolma-sql's compatibility module in an installed (non-editable) package too."""
    write_documents(tmp_path)
    (tmp_path / "my_taggers.py").write_text(
        "from dolma import add_tagger, BaseTagger\n"
        "from dolma.core.data_types import DocResult, Document, Span\n\n"
        "@add_tagger('comma_count')\n"
        "class CommaCount(BaseTagger):\n"
        "    def predict(self, doc: Document) -> DocResult:\n"
        "        return DocResult(doc=doc, spans=[Span(start=0, end=len(doc.text), type='commas', score=doc.text.count(','))])\n"
    )
    result = run(installed, ["tag", "--documents", "documents/*.jsonl.gz", "--taggers", "comma_count", "--tagger_modules", "my_taggers.py"], tmp_path)
    assert result.returncode == 0, result.stderr
    with gzip.open(tmp_path / "attributes/comma_count/d.jsonl.gz", "rt") as handle:
        assert [json.loads(line)["attributes"]["comma_count__comma_count__commas"][0][2] for line in handle] == [0.0, 0.0, 1.0]


def test_plain_install_names_the_extra_a_heavy_family_needs(installed, tmp_path):
    write_documents(tmp_path)
    result = run(installed, ["tag", "--documents", "documents/*.jsonl.gz", "--taggers", "lingua_doc_v1"], tmp_path)
    assert result.returncode != 0
    assert 'pip install ".[lang]" in the dolma-sql checkout' in result.stderr + result.stdout


def test_plain_install_holds_every_module_of_the_source_tree(installed, tmp_path):
    """Every module under ``dolma_sql/`` imports from the installed package (a package missing from pyproject's
    list is left out of the install, and only the commands that import it would fail)."""
    modules = sorted(
        ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for path in (REPO / "dolma_sql").rglob("*.py")
        if "__pycache__" not in path.parts and path.name != "__main__.py"  # that one runs the CLI
    )
    probe = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\nprint('ok')"
    result = subprocess.run([str(installed / "python"), "-c", probe, *modules], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.stdout.strip() == "ok", result.stderr[-3000:]
