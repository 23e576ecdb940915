"""fastText taggers against upstream's own tagger code run on the same local models.

Upstream downloads its models; here tiny models are trained on the fly (a toxicity pair, a quality
pair, several quality labels, and a language model with lid.176's label names), upstream's tagger
class is pointed at the same file inside the oracle venv (``tests/upstream_tagger.py``), and both
outputs are compared span by span.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tag_helpers import assert_same_spans, hide_module, conformance_documents, edge_documents, read_rows, tagger_attributes, upstream_tagger_outputs, write_jsonl_gz
from test_tag_cli import fail, ok

fasttext = pytest.importorskip("fasttext")

TRAINING = {
    "binary": ["__label__toxic you are an idiot and I hate you", "__label__nontoxic thank you for the lovely afternoon",
               "__label__toxic shut up stupid fool", "__label__nontoxic the museum opens at nine every morning"],
    "quality": ["__label__hq the theorem follows from the lemma by induction", "__label__cc click here buy now cheap deals",
                "__label__hq photosynthesis converts light into chemical energy", "__label__cc best price free shipping subscribe"],
    "multi": ["__label__wiki the city is the capital of the province", "__label__cc buy cheap shoes online today",
              "__label__books she opened the door and the old house creaked", "__label__math let x be a real number greater than zero"],
    "languages": ["__label__en you are an idiot thank you for the lovely afternoon", "__label__fr bonjour tout le monde merci beaucoup",
                  "__label__de hallo welt wie geht es dir", "__label__en buy cheap shoes now the city is the capital"],
}


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    paths = {}
    for name, lines in TRAINING.items():
        train = root / f"{name}.txt"
        train.write_text("\n".join(lines * 20) + "\n")
        model = fasttext.train_supervised(input=str(train), epoch=5, dim=8, minCount=1, bucket=1000, wordNgrams=2, verbose=0, thread=1)
        paths[name] = root / f"{name}.bin"
        model.save_model(str(paths[name]))
    return paths


def documents() -> list[dict]:
    texts = ["You are an idiot.\nThank you for the lovely afternoon!", "Bonjour tout le monde.\n\nHallo Welt, wie geht es?", "Buy cheap shoes now", " \n ",
             "Héllo wörld, you idiot. 日本語です。 Thank you for the lovely afternoon! \n\nStupid fool?\u2028 Ça va… 😊 merci."]
    return [{"id": f"m{i}", "text": t, "source": "t"} for i, t in enumerate(texts)] + edge_documents(60, seed=3)[1:] + conformance_documents()


def model_file(models: dict[str, Path], model: str) -> Path:
    return models[model]


@pytest.fixture(scope="session")
def upstream_outputs(oracle, models, tmp_path_factory) -> dict[str, list[dict]]:
    """Every case's upstream output, from one run of the oracle interpreter."""
    requests = [f"{tagger}={model_file(models, model)}" for tagger, _, model in CASES]
    return upstream_tagger_outputs(oracle, documents(), requests, tmp_path_factory.mktemp("upstream-fasttext"))


CASES = [
    ("jigsaw_hatespeech_document_v2", "jigsaw_hatespeech", "binary"),
    ("jigsaw_nsfw_document_v1", "jigsaw_nsfw", "binary"),
    ("jigsaw_hatespeech_sentence_v2", "jigsaw_hatespeech", "binary"),
    ("jigsaw_nsfw_sencence_v2", "jigsaw_nsfw", "binary"),
    ("dclm-oh-eli5", "dclm_oh_eli5", "quality"),
    ("dolma17-quality", "dolma17_quality", "multi"),
    ("ft_lang_id_doc_v1", "ft_lang_id", "languages"),
    ("ft_lang_id_1e2", "ft_lang_id", "languages"),
    ("ft_lang_id_paragraph_v1", "ft_lang_id", "languages"),
    ("ft_lang_id_en_doc_v2", "ft_lang_id", "languages"),
    ("ft_lang_id_en_only_v2", "ft_lang_id", "languages"),
    ("ft_lang_id_en_paragraph_v2", "ft_lang_id", "languages"),
    ("ft_lang_id_en_paragraph_with_doc_score_v2", "ft_lang_id", "languages"),
]


@pytest.mark.oracle
@pytest.mark.parametrize("tagger,option,model", CASES)
def test_fasttext_taggers_equal_upstream_code_on_the_same_model(tagger, option, model, models, upstream_outputs, tmp_path):
    docs = documents()
    expected = upstream_outputs[tagger]
    path = model_file(models, model)
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", docs)
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", tagger, "--experiment", "m", f"--models.{option}", str(path)], tmp_path)
    prefix = f"m__{tagger.replace('-', '_')}__"
    for document, want, got in zip(docs, expected, read_rows(tmp_path / "attributes/m/d.jsonl.gz")):
        mine = tagger_attributes(got, prefix)
        if "__error__" in want:  # upstream crashes on this text (e.g. IndexError on an empty one): no spans here
            assert mine == {}, (document["text"][:60], want)
            continue
        assert_same_spans(mine, want, document["text"][:60])

def test_missing_model_file_fails_before_reading(tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:1])
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "jigsaw_nsfw_document_v1", "--models.jigsaw_nsfw", "nope.bin"], tmp_path)
    assert "model file not found: nope.bin" in message and "models.jigsaw_nsfw" in message
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "dclm-oh-eli5"], tmp_path)
    assert "--models.dclm_oh_eli5" in message
    assert not (tmp_path / "attributes").exists()


def test_sentence_taggers_without_blingfire_fail_before_reading(models, tmp_path, monkeypatch):
    hide_module(monkeypatch, "blingfire")
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:1])
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "jigsaw_hatespeech_sentence_v2",
                    "--models.jigsaw_hatespeech", str(models["binary"])], tmp_path)
    assert "blingfire" in message and "pip install blingfire" in message
    monkeypatch.undo()
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "jigsaw_nsfw_sencence_v2"], tmp_path)
    assert "--models.jigsaw_nsfw" in message
    assert not (tmp_path / "attributes").exists()


def test_generic_classifier_on_a_trained_model(models, tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:3])
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "ft_classifier_doc_v1", "ft_classifier_paragraph_v1",
        "--experiment", "g", "--models.fasttext", str(models["multi"])], tmp_path)
    rows = read_rows(tmp_path / "attributes/g/d.jsonl.gz")
    document_labels = {key.rsplit("__", 1)[-1] for key in rows[0]["attributes"] if "_doc_v1" in key}
    assert document_labels == {"wiki", "cc", "books", "math"}
    for row in rows:
        total = sum(spans[0][2] for key, spans in row["attributes"].items() if "_doc_v1" in key)
        assert abs(total - 1.0) < 1e-3  # softmax probabilities of every label


def test_language_id_defaults_to_the_shipped_lid_176_model(tmp_path):
    """Without --models.ft_lang_id: the lid.176.ftz model shipped in the package."""
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [{"id": "e", "text": "This is an English sentence about the weather."},
                                                           {"id": "f", "text": "Ceci est une phrase en français sur la météo."}])
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "ft_lang_id_en_doc_v2", "ft_lang_id_doc_v1", "--experiment", "l"], tmp_path)
    english, french = read_rows(tmp_path / "attributes/l/d.jsonl.gz")
    assert english["attributes"]["l__ft_lang_id_en_doc_v2__en"][0][2] > 0.5
    assert french["attributes"]["l__ft_lang_id_doc_v1__fr"][0][2] > 0.5
