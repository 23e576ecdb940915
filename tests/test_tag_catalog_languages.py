"""lingua, langdetect and CLD3 taggers against upstream's own tagger classes on the same documents (issue 18, item 5).

Upstream's classes run inside the oracle venv (``tests/upstream_tagger.py``) with lingua and
langdetect installed there; upstream imports CLD3 as ``pycld3``'s ``cld3`` module, which has no
wheel, so the oracle gets a ``cld3`` module that calls the same CLD3 build (``gcld3`` of cld3-py)
the way ``pycld3.get_language`` does: what is compared is upstream's tagger logic around it.
"""

from __future__ import annotations

import os

import pytest

from tag_helpers import assert_same_spans, conformance_documents, edge_documents, read_rows, tagger_attributes, upstream_tagger_outputs, write_jsonl_gz
from test_tag_cli import fail, ok

LINGUA = ["lingua_doc_v1", "lingua_1e2", "lingua_par_v1", "lingua_doc_en_v1", "lingua_en_only_v1", "lingua_en_par_v1"]
LANGDETECT = ["langdetect_doc_v1", "langdetect_paragraph_v1", "langdetect_doc_en_v1", "langdetect_en_paragraph_v1"]
CLD3 = ["cld3_en_doc_v2", "cld3_en_paragraph_v2", "cld3_en_paragraph_with_doc_score_v2"]
TAGGERS = LINGUA + LANGDETECT + CLD3

# pycld3's get_language, over the wheel's binding: None for an empty text or an unknown language
CLD3_MODULE = '''import collections
import gcld3
LanguagePrediction = collections.namedtuple("LanguagePrediction", "language probability is_reliable proportion")
_identifier = gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=1024)
def get_language(text):
    if not text:
        return None
    result = _identifier.FindLanguage(text=text)
    if result.language == "und":
        return None
    return LanguagePrediction(result.language, result.probability, result.is_reliable, result.proportion)
'''


def documents() -> list[dict]:
    texts = ["The quick brown fox jumps over the lazy dog.\nLe renard brun saute par-dessus le chien paresseux.\n\nDer Hund schläft.",
             "これは日本語の文です。\n这是中文句子。\nЭто предложение на русском языке.", "", " \n ", "1234 !!! ???",
             "Buenos días, ¿cómo estás? Muy bien, gracias.\nhttp://example.com mail@example.com",
             "Ciao! Come stai?\nCiao! Come stai?\nCiao! Come stai?"]
    return [{"id": f"l{i}", "text": t, "source": "t"} for i, t in enumerate(texts)] + edge_documents(40, seed=9)[14:] + conformance_documents()[:2]


@pytest.fixture(scope="session")
def upstream_outputs(oracle, tmp_path_factory) -> dict[str, list[dict]]:
    root = tmp_path_factory.mktemp("upstream-languages")
    (root / "cld3.py").write_text(CLD3_MODULE)
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(root)
    try:
        return upstream_tagger_outputs(oracle, documents(), TAGGERS, root)
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved


@pytest.fixture(scope="module")
def mine(tmp_path_factory) -> list[dict]:
    """dolma-sql's attribute rows for every tagger, from one run."""
    root = tmp_path_factory.mktemp("languages")
    write_jsonl_gz(root / "documents" / "d.jsonl.gz", documents())
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", *TAGGERS, "--experiment", "x"], root)
    return read_rows(root / "attributes/x/d.jsonl.gz")


@pytest.mark.oracle
@pytest.mark.parametrize("tagger", TAGGERS)
def test_language_taggers_equal_upstream_code(tagger, upstream_outputs, mine):
    for document, want, row in zip(documents(), upstream_outputs[tagger], mine):
        got = tagger_attributes(row, f"x__{tagger}__")
        if "__error__" in want:  # upstream's CLD3 taggers crash where CLD3 returns no language: English 0.0 here
            assert tagger.startswith("cld3") and "NoneType" in want["__error__"], want
            assert all(span[2] == 0.0 for span in got.get("en", [])) and got.get("en"), (document["text"][:40], got)
            continue
        assert_same_spans(got, want, document["text"][:60])


def test_language_taggers_detect_the_obvious(mine):
    english = mine[0]["attributes"]
    lingua = [span[2] for span in english["x__lingua_en_par_v1__en"]]
    assert lingua[0] > max(lingua[1:]) and english["x__lingua_par_v1__fr"][1][2] > 0.3
    assert [span[2] > 0.5 for span in english["x__langdetect_en_paragraph_v1__en"]] == [True, False, False]
    assert [span[2] > 0.5 for span in english["x__cld3_en_paragraph_v2__en"]] == [True, False, False]
    assert mine[1]["attributes"]["x__lingua_par_v1__ja"][0][2] > 0.5


def test_lingua_without_its_extra_names_the_command_that_installs_it(tmp_path, monkeypatch):
    from tag_helpers import hide_module

    hide_module(monkeypatch, "lingua")
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:1])
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "lingua_doc_v1"], tmp_path)
    assert 'pip install ".[lang]" in the dolma-sql checkout' in message and "lingua" in message
    assert not (tmp_path / "attributes").exists()
