"""Language ID by lingua, langdetect and CLD3 (dolma ``taggers/language.py``): models shipped inside their packages.

Each detector gets the distinct texts of a batch (documents, or paragraphs with their newline as
upstream splits them) and the spans are laid out by :func:`~dolma_sql.udfs.language.predict_units`.
lingua is called on the whole list at once (its Rust core runs them in parallel); langdetect
(pure Python) and CLD3 (a C++ call) are called per text, so these two families are per-document.

Differences from upstream: CLD3 scores ``en`` 0.0 for a text whose language it cannot tell (an
empty text, ``und``), where upstream's tagger crashes (``None.language``). CLD3 comes from the
``cld3-py`` wheel (module ``gcld3``, Google's CLD3 built with its model), called as ``pycld3``'s
``get_language`` calls it (first 1,024 bytes); upstream imports ``pycld3``, which has no wheel.
"""

from __future__ import annotations

from functools import cache

from dolma_sql.errors import install_hint
from dolma_sql.tagging import TagBatch, require_modules, tagger
from dolma_sql.udfs.language import (
    Predictions,
    each,
    english_only,
    paragraph_texts,
    predict_units,
    with_document_score,
    with_negatives,
)
from dolma_sql.udfs.text import documents


def _units(batch: TagBatch, paragraphs: bool):
    return paragraph_texts(batch) if paragraphs else documents(batch)


def _english(predict):
    return lambda texts: [english_only(languages) for languages in predict(texts)]


# ------------------------------------------------------------------ lingua (all 75 languages)
def require_lingua(options: dict) -> None:
    require_modules("the lingua taggers", ["lingua"], hint=install_hint("lang", "lingua-language-detector, ~100 MB of models"))


@cache
def _lingua():
    from lingua import Language, LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(*Language.all()).build()


def lingua_languages(texts: list[str]) -> Predictions:
    """Every language's confidence per text, most confident first (ISO 639-1 codes, lowercase)."""
    results = _lingua().compute_language_confidence_values_in_parallel(texts)
    return [[(value.language.iso_code_639_1.name.lower(), float(value.value)) for value in values] for values in results]


def _at_least_1e2(texts: list[str]) -> Predictions:
    return [[(language, round(score, 2)) for language, score in languages if score > 0.01] for languages in lingua_languages(texts)]


LINGUA = {"requires": "lingua", "check": require_lingua}


@tagger("lingua_doc_v1", types=["<language>"], **LINGUA)
def lingua_doc_v1(batch: TagBatch):
    return predict_units(_units(batch, False), lingua_languages)


@tagger("lingua_1e2", types=["<language>"], **LINGUA)
def lingua_1e2(batch: TagBatch):
    return predict_units(_units(batch, False), _at_least_1e2)


@tagger("lingua_par_v1", types=["<language>"], **LINGUA)
def lingua_par_v1(batch: TagBatch):
    return predict_units(_units(batch, True), lingua_languages)


@tagger("lingua_doc_en_v1", types=["en", "not_en"], **LINGUA)
def lingua_doc_en_v1(batch: TagBatch):
    return with_negatives(predict_units(_units(batch, False), _english(lingua_languages)))


@tagger("lingua_en_only_v1", types=["en"], **LINGUA)
def lingua_en_only_v1(batch: TagBatch):
    return predict_units(_units(batch, False), _english(lingua_languages))


@tagger("lingua_en_par_v1", types=["en", "not_en"], **LINGUA)
def lingua_en_par_v1(batch: TagBatch):
    return with_negatives(predict_units(_units(batch, True), _english(lingua_languages)))


# ------------------------------------------------------------------ langdetect (seed 0)
def require_langdetect(options: dict) -> None:
    require_modules("the langdetect taggers", ["langdetect"], hint="pip install langdetect")


@cache
def _langdetect():
    from langdetect import PROFILES_DIRECTORY, DetectorFactory

    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    factory.set_seed(0)
    return factory.create()


def langdetect_languages(text: str) -> list[tuple[str, float]]:
    """langdetect's languages above its 0.1 threshold, most probable first; none for a text without features.

    The detector is seeded (it reseeds Python's ``random`` with 0 on every call), so a text always gets the same answer.
    """
    from langdetect import LangDetectException

    detector = _langdetect()
    try:
        detector.append(text)
        return [(str(language.lang.strip().lower()), float(language.prob)) for language in detector.get_probabilities()]
    except LangDetectException:
        return []
    finally:
        detector.text, detector.langprob = "", None


LANGDETECT = {"requires": "langdetect", "check": require_langdetect, "vectorized": False}


@tagger("langdetect_doc_v1", types=["<language>"], **LANGDETECT)
def langdetect_doc_v1(batch: TagBatch):
    return predict_units(_units(batch, False), each(langdetect_languages))


@tagger("langdetect_paragraph_v1", types=["<language>"], **LANGDETECT)
def langdetect_paragraph_v1(batch: TagBatch):
    return predict_units(_units(batch, True), each(langdetect_languages))


@tagger("langdetect_doc_en_v1", types=["en", "not_en"], **LANGDETECT)
def langdetect_doc_en_v1(batch: TagBatch):
    return with_negatives(predict_units(_units(batch, False), _english(each(langdetect_languages))))


@tagger("langdetect_en_paragraph_v1", types=["en", "not_en"], **LANGDETECT)
def langdetect_en_paragraph_v1(batch: TagBatch):
    return with_negatives(predict_units(_units(batch, True), _english(each(langdetect_languages))))


# ------------------------------------------------------------------ CLD3 (English only)
def require_cld3(options: dict) -> None:
    require_modules("the cld3 taggers", ["gcld3"], hint="pip install cld3-py")


@cache
def _cld3():
    import gcld3

    return gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=1024)


def cld3_english(text: str) -> list[tuple[str, float]]:
    """``[("en", P(en))]``: CLD3's probability when it says English, else 0.0."""
    if not text:
        return [("en", 0.0)]
    result = _cld3().FindLanguage(text=text)
    return [("en", float(result.probability) if result.language == "en" else 0.0)]


CLD3 = {"types": ["en", "not_en"], "requires": "gcld3", "check": require_cld3, "vectorized": False}


@tagger("cld3_en_doc_v2", **CLD3)
def cld3_en_doc_v2(batch: TagBatch):
    return with_negatives(predict_units(_units(batch, False), each(cld3_english)))


@tagger("cld3_en_paragraph_v2", **CLD3)
def cld3_en_paragraph_v2(batch: TagBatch):
    return with_negatives(predict_units(_units(batch, True), each(cld3_english)))


@tagger("cld3_en_paragraph_with_doc_score_v2", **{**CLD3, "types": ["en", "not_en", "doc_en", "doc_not_en"]})
def cld3_en_paragraph_with_doc_score_v2(batch: TagBatch):
    return with_document_score(batch, cld3_en_paragraph_v2(batch))
