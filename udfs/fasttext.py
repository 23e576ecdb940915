"""fastText taggers (dolma ``core/ft_tagger.py``, ``taggers/language.py``, ``jigsaw.py``, ``quality.py``).

Models are local files given with ``--models.<name> PATH`` (upstream downloads them at run time;
dolma-sql never does). Language ID defaults to the ``lid.176.ftz`` model shipped in ``udfs/data``
(see its NOTICE: every PyPI package that ships it also pulls a second distribution of the
``fasttext`` module, which overwrites ``fasttext-wheel``'s files). Text preparation (lowercasing, newline removal, stripping) is vectorized; the model
is then called once per text (fastText's batch call returns wrong probabilities in the installed
binding), so these taggers are per-document.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import cache

import polars as pl

from dolma_sql.errors import ConfigError
from dolma_sql.tagging import Spans, TagBatch, require_modules, tagger
from dolma_sql.udfs.language import english_only, with_document_score, with_negatives
from dolma_sql.udfs.text import PY_WHITESPACE, Segments, documents, paragraphs, sentences

LABEL_PREFIX = "__label__"


DEFAULT_LANGUAGE_MODEL = os.path.join(os.path.dirname(__file__), "data", "lid.176.ftz")
"""fastText's compressed 176-language model, shipped with dolma-sql (upstream downloads ``lid.176.bin``)."""


def model_path(options: dict, key: str) -> str:
    path = options.get(key) or (DEFAULT_LANGUAGE_MODEL if key == "ft_lang_id" else None)
    if path is None:
        raise ConfigError(f"no fastText model for {key}", path=f"models.{key}", hint=f"pass --models.{key} PATH/TO/MODEL.bin")
    if not os.path.isfile(path):
        raise ConfigError(f"model file not found: {path}", path=f"models.{key}", hint="pass the path of a local fastText .bin/.ftz model")
    return path


def model_check(key: str) -> Callable[[dict], None]:
    def check(options: dict) -> None:
        try:
            import fasttext  # noqa: F401
        except ImportError:
            raise ConfigError("fastText taggers need the fasttext package", path="taggers", hint="pip install fasttext-wheel") from None
        path = model_path(options, key)
        try:
            load_model(path)
        except ValueError as error:
            raise ConfigError(f"cannot load fastText model {path}: {error}", path=f"models.{key}") from None

    return check


@cache
def load_model(path: str):
    from fasttext.FastText import _FastText

    return _FastText(model_path=path)


def predict(texts: Sequence[str], path: str, k: int = -1) -> list[list[tuple[str, float]]]:
    """``[(label, probability), …]`` per text, most probable first (fastText's order).

    Calls the native binding as fastText's Python ``predict`` does, including the ``"\\n"`` it
    appends (the end-of-sentence token changes the probabilities).
    """
    native = load_model(path).f
    return [[(label, probability) for probability, label in native.predict(text + "\n", k, 0.0, "strict")] for text in texts]


def _clean(texts: pl.Series, *, lowercase: bool = False) -> list[str]:
    """``text[.lower()].replace("\\n", " ").strip()``, vectorized."""
    if lowercase:
        texts = texts.str.to_lowercase()
    return texts.str.replace_all("\n", " ", literal=True).str.strip_chars(PY_WHITESPACE).to_list()


def _spans(units: Segments, predictions: list[list[tuple[str, float]]]) -> dict[str, Spans]:
    collected: dict[str, list[tuple[int, int, int, float]]] = {}
    for row, start, end, labels in zip(units.rows.tolist(), units.starts.tolist(), units.ends.tolist(), predictions):
        for label, score in labels:
            collected.setdefault(label, []).append((row, start, end, score))
    return {label: Spans(*map(list, zip(*items))) for label, items in collected.items()}


# ------------------------------------------------------------------ language ID (lid.176)
def _languages(batch: TagBatch, units: Segments) -> list[list[tuple[str, float]]]:
    predictions = predict(_clean(units.text, lowercase=True), model_path(batch.options, "ft_lang_id"))
    return [[(label.replace(LABEL_PREFIX, ""), score) for label, score in labels] for labels in predictions]


def _english(predictions):
    return [english_only(labels) for labels in predictions]


LANGUAGE = {"requires": "fasttext", "check": model_check("ft_lang_id"), "vectorized": False}


@tagger("ft_lang_id_doc_v1", types=["<language>"], **LANGUAGE)
def ft_lang_id_doc_v1(batch: TagBatch):
    units = documents(batch)
    return _spans(units, _languages(batch, units))


@tagger("ft_lang_id_1e2", types=["<language>"], **LANGUAGE)
def ft_lang_id_1e2(batch: TagBatch):
    units = documents(batch)
    kept = [[(lang, round(score, 2)) for lang, score in labels if score > 0.01] for labels in _languages(batch, units)]
    return _spans(units, kept)


@tagger("ft_lang_id_paragraph_v1", types=["<language>"], **LANGUAGE)
def ft_lang_id_paragraph_v1(batch: TagBatch):
    units = paragraphs(batch)
    return _spans(units, _languages(batch, units))


@tagger("ft_lang_id_en_doc_v2", types=["en", "not_en"], **LANGUAGE)
def ft_lang_id_en_doc_v2(batch: TagBatch):
    units = documents(batch)
    return with_negatives(_spans(units, _english(_languages(batch, units))))


@tagger("ft_lang_id_en_only_v2", types=["en"], **LANGUAGE)
def ft_lang_id_en_only_v2(batch: TagBatch):
    units = documents(batch)
    return _spans(units, _english(_languages(batch, units)))


@tagger("ft_lang_id_en_paragraph_v2", types=["en", "not_en"], **LANGUAGE)
def ft_lang_id_en_paragraph_v2(batch: TagBatch):
    units = paragraphs(batch)
    return with_negatives(_spans(units, _english(_languages(batch, units))))


@tagger("ft_lang_id_en_paragraph_with_doc_score_v2", types=["en", "not_en", "doc_en", "doc_not_en"], **LANGUAGE)
def ft_lang_id_en_paragraph_with_doc_score_v2(batch: TagBatch):
    return with_document_score(batch, ft_lang_id_en_paragraph_v2(batch))


# ------------------------------------------------------------------ classifiers
def _binary_toxicity(batch: TagBatch, key: str, units: Segments) -> dict[str, Spans]:
    """Both labels of a binary model per unit, the one without "non" first (dolma's jigsaw taggers)."""
    ordered = []
    for labels in predict(_clean(units.text), model_path(batch.options, key)):
        if len(labels) < 2:  # fastText predicts nothing for an empty text (upstream: IndexError)
            ordered.append([])
            continue
        index = 1 if "non" in labels[0][0] else 0
        ordered.append([labels[index], labels[1 - index]])
    return _spans(units, ordered)


HATESPEECH = {"types": ["__label__toxic", "__label__nontoxic"], "requires": "fasttext", "check": model_check("jigsaw_hatespeech"), "vectorized": False}
NSFW = {"types": ["__label__nsfw", "__label__non-nsfw"], "requires": "fasttext", "check": model_check("jigsaw_nsfw"), "vectorized": False}


def sentence_level(family: dict, key: str) -> dict:
    """The registration of a family's per-sentence variant: blingfire is needed too (upstream falls back to nltk's punkt; dolma-sql does not)."""
    check_model = model_check(key)

    def check(options: dict) -> None:
        require_modules("sentence-level fastText taggers", ["blingfire"], hint="pip install blingfire")
        check_model(options)

    return {**family, "requires": f"{family['requires']}, blingfire", "check": check}


@tagger("jigsaw_hatespeech_document_v2", **HATESPEECH)
def jigsaw_hatespeech_document_v2(batch: TagBatch):
    return _binary_toxicity(batch, "jigsaw_hatespeech", documents(batch))


@tagger("jigsaw_hatespeech_sentence_v2", **sentence_level(HATESPEECH, "jigsaw_hatespeech"))
def jigsaw_hatespeech_sentence_v2(batch: TagBatch):
    return _binary_toxicity(batch, "jigsaw_hatespeech", sentences(batch))


@tagger("jigsaw_nsfw_document_v1", **NSFW)
def jigsaw_nsfw_document_v1(batch: TagBatch):
    return _binary_toxicity(batch, "jigsaw_nsfw", documents(batch))


@tagger("jigsaw_nsfw_sencence_v2", **sentence_level(NSFW, "jigsaw_nsfw"))
def jigsaw_nsfw_sencence_v2(batch: TagBatch):
    """Upstream's name, misspelled as upstream registers it (it has no correctly spelled alias)."""
    return _binary_toxicity(batch, "jigsaw_nsfw", sentences(batch))


@tagger("dclm-oh-eli5", types=["score"], requires="fasttext", check=model_check("dclm_oh_eli5"), vectorized=False)
def dclm_oh_eli5(batch: TagBatch):
    """P(high quality): the top label's probability, inverted when the top label is ``cc``."""
    units = documents(batch)
    texts = [" ".join(text.strip().splitlines()) for text in batch.text.to_pylist()]  # str.splitlines' line breaks
    scored = []
    for labels in predict(texts, model_path(batch.options, "dclm_oh_eli5"), k=1):
        if not labels:  # an empty text (upstream: IndexError)
            scored.append([])
            continue
        label, probability = labels[0]
        if label == "__label__cc":
            probability = 1 - probability
        scored.append([(label.replace(LABEL_PREFIX, "").replace("cc", "score").replace("hq", "score"), probability)])
    return _spans(units, scored)


@tagger("dolma17-quality", types=["<label>"], requires="fasttext", check=model_check("dolma17_quality"), vectorized=False)
def dolma17_quality(batch: TagBatch):
    """Every label, most probable first, on the whitespace-normalised text.

    Upstream crashes on a text without any token (``zip(*[])``); such documents get no spans here.
    """
    from tokenizers import normalizers, pre_tokenizers

    normalizer, splitter = normalizers.Strip(), pre_tokenizers.WhitespaceSplit()
    units = documents(batch)
    texts = [" ".join(token for token, _ in splitter.pre_tokenize_str(normalizer.normalize_str(t))) for t in batch.text.to_pylist()]
    empty = [not text for text in texts]
    predictions = predict([t or " " for t in texts], model_path(batch.options, "dolma17_quality"))
    labelled = [
        [] if skip else sorted(((label.replace(LABEL_PREFIX, ""), p) for label, p in labels), key=lambda item: item[1], reverse=True)
        for skip, labels in zip(empty, predictions)
    ]
    return _spans(units, labelled)


@tagger("ft_classifier_doc_v1", types=["<label>"], requires="fasttext", check=model_check("fasttext"), vectorized=False)
def ft_classifier_doc_v1(batch: TagBatch):
    """Any fastText classifier (``--models.fasttext PATH``): every label's probability per document."""
    return _classify(batch, documents(batch))


def _classify(batch: TagBatch, units: Segments) -> dict[str, Spans]:
    predictions = predict(_clean(units.text), model_path(batch.options, "fasttext"))
    return _spans(units, [[(label.removeprefix(LABEL_PREFIX), p) for label, p in labels] for labels in predictions])


@tagger("ft_classifier_paragraph_v1", types=["<label>"], requires="fasttext", check=model_check("fasttext"), vectorized=False)
def ft_classifier_paragraph_v1(batch: TagBatch):
    """Any fastText classifier (``--models.fasttext PATH``): every label's probability per paragraph."""
    return _classify(batch, paragraphs(batch))
