"""Language identification taggers (dolma ``taggers/language.py``): CLD2 (pycld2).

CLD2 is a C library called once per text (document or paragraph): these taggers are
per-document by nature. Paragraphs come from the shared vectorized split; the loop below only
calls the library and collects spans.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.errors import ConfigError
from dolma_sql.formats.lines import line_offsets, positions_of
from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.text import Segments, documents, exclusive_cumsum_per_row

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]+")  # \p{Cc} and \p{Cs}, which CLD2 rejects


def require_pycld2(options: dict) -> None:
    try:
        import anyascii  # noqa: F401  (upstream retries CLD2 on transliterated text)
        import pycld2  # noqa: F401
    except ImportError as error:
        raise ConfigError(
            f"the cld2 taggers need pycld2 and anyascii ({error.name} is missing)",
            path="taggers",
            hint="pip install pycld2 anyascii",
        ) from None


class _LanguageCodes(dict):
    """CLD2 language name -> dolma's language code: the first two letters of the *name*, lowercase
    (``GERMAN`` -> ``ge``), as upstream reads it; each name is cut once, then looked up."""

    def __missing__(self, name: str) -> str:
        self[name] = code = name[:2].lower()
        return code


_CODES = _LanguageCodes()


ENGLISH = "ENGLISH"
"""The one CLD2 language name whose code (:data:`_CODES`) is ``en``."""


def cld2_languages(text: str) -> list[tuple[str, float]]:
    """dolma's CLD2 call: retry on transliterated then on sanitised text; reliable, known languages only."""
    import pycld2

    try:
        reliable, _, details = pycld2.detect(text)
    except pycld2.error:
        reliable, details = _detect_prepared(text)
    if not reliable:
        return []
    return [(_CODES[name], percent / 100.0) for name, _, percent, _ in details if name != "UNKNOWN_LANGUAGE"]


def _detect_prepared(text: str) -> tuple[bool, tuple]:
    """CLD2 on the transliterated text, else on the sanitised text (after CLD2 rejected ``text``)."""
    import pycld2

    for prepare in (_transliterate, _sanitize):
        try:
            reliable, _, details = pycld2.detect(prepare(text))
            return reliable, details
        except pycld2.error:
            continue
    return False, ()


def _transliterate(text: str) -> str:
    from anyascii import anyascii

    return anyascii(text)


def _sanitize(text: str) -> str:
    return _CONTROL.sub("", text)


def english_only(predictions: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(lang, score) for lang, score in predictions if lang == "en"] or [("en", 0.0)]


Predictions = list[list[tuple[str, float]]]


@dataclass(frozen=True)
class FlatPredictions:
    """Predictions of several texts end to end: text ``i`` has ``counts[i]`` ``(languages, scores)`` pairs.

    A detector may return these instead of :data:`Predictions` to spare a Python list per text.
    """

    counts: np.ndarray
    languages: np.ndarray
    scores: np.ndarray

    @classmethod
    def of(cls, predictions: Predictions) -> FlatPredictions:
        counts = np.array([len(p) for p in predictions], dtype=np.int64)
        languages = np.array([language for p in predictions for language, _ in p], dtype=object)
        scores = np.array([score for p in predictions for _, score in p], dtype=np.float64)
        return cls(counts, languages, scores)


@dataclass(frozen=True)
class TextUnits:
    """The texts a detector scores (here paragraphs): row, ``[start, end)`` in code points, and the texts as Arrow strings."""

    rows: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    text: pa.LargeStringArray


def each(predict: Callable[[str], list[tuple[str, float]]]) -> Callable[[list[str]], Predictions]:
    """A detector called once per text, as the batch detector :func:`predict_units` takes."""
    return lambda texts: [predict(text) for text in texts]


def cld2_english(texts: list[str] | list[bytes]) -> FlatPredictions:
    """``english_only(cld2_languages(text))`` of each text, collected flat: one score per text, more only if
    CLD2 names English twice, ``0.0`` when it finds none or is not sure.

    The texts may be UTF-8 bytes, which CLD2 reads as they are (a ``str`` is encoded again on every call).
    """
    import pycld2

    detect, error = pycld2.detect, pycld2.error
    counts, percents = np.ones(len(texts), dtype=np.int64), []  # CLD2's integer percents: no float made per text
    add = percents.append
    for index, text in enumerate(texts):
        try:
            reliable, _, details = detect(text)
        except error:
            reliable, details = _detect_prepared(text if isinstance(text, str) else text.decode())
        if not reliable:
            add(0)
            continue
        (first, _, percent, _), (second, _, _, _), (third, _, _, _) = details  # always three ("Unknown" for none)
        if second != ENGLISH and third != ENGLISH:  # CLD2's usual answer: English first or not at all
            add(percent if first == ENGLISH else 0)
        else:
            english = [percent for name, _, percent, _ in details if name == ENGLISH]
            percents += english
            counts[index] = len(english)
    scores = np.array(percents, dtype=np.float64) / 100.0  # the same division as percent / 100.0, per element
    return FlatPredictions(counts, np.full(len(scores), "en", dtype=object), scores)


def predict_units(
    units: Segments | TextUnits, predict: Callable[[list[str]], Predictions | FlatPredictions], *, utf8: bool = False
) -> dict[str, Spans]:
    """Spans per language over ``units`` (documents or paragraphs), in the order the languages first appear.

    ``predict`` gets the distinct texts in order of first appearance (repeated boilerplate
    paragraphs are detected once per batch; Arrow finds them), as UTF-8 ``bytes`` if ``utf8``, and
    returns ``[(language, score), …]`` for each, or the same as :class:`FlatPredictions`; the spans
    are laid out with numpy.
    """
    texts = units.text if isinstance(units.text, pa.Array) else units.text.to_arrow()  # a polars Series
    encoded = pc.dictionary_encode(texts.cast(pa.large_string()))
    inverse = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    predictions = predict((encoded.dictionary.cast(pa.large_binary()) if utf8 else encoded.dictionary).to_pylist())
    if not isinstance(predictions, FlatPredictions):
        predictions = FlatPredictions.of(predictions)
    counts, languages, scores = predictions.counts, predictions.languages, predictions.scores
    owners = np.repeat(np.arange(len(counts)), counts)
    output = {}
    for language in dict.fromkeys(languages.tolist()):
        mine = languages == language
        per_text = np.bincount(owners[mine], minlength=len(counts))
        per_unit = per_text[inverse]
        units_taken = np.repeat(np.arange(len(inverse)), per_unit)
        within = np.arange(len(units_taken)) - np.repeat(np.cumsum(per_unit) - per_unit, per_unit)
        entries = (np.cumsum(per_text) - per_text)[inverse[units_taken]] + within
        output[language] = Spans(units.rows[units_taken], units.starts[units_taken], units.ends[units_taken], scores[mine][entries])
    return output


def with_negatives(output: dict[str, Spans]) -> dict[str, Spans]:
    negatives = {f"not_{t}": Spans(s.rows, s.starts, s.ends, 1.0 - s.scores) for t, s in output.items()}
    return {**output, **negatives}


def paragraph_texts(batch: TagBatch) -> TextUnits:
    """dolma's paragraphs (``[^\\n]*\\n|[^\\n]+$``, whitespace-only ones dropped) with their newline, as upstream
    passes ``paragraph.text`` to the detector.

    They are cut from the batch's text bytes after every newline: nothing is copied before the non-blank
    ones are taken, and the detectors get Arrow strings, which they would otherwise convert to.
    """

    def compute() -> TextUnits:
        texts = batch.text if not batch.text.null_count else pc.fill_null(batch.text, "")
        data = texts.buffers()[2]
        offsets = line_offsets(texts)
        text_bytes = np.frombuffer(data, dtype=np.uint8, count=int(offsets[-1])) if data is not None else np.zeros(0, dtype=np.uint8)
        after_newlines = positions_of(text_bytes[offsets[0] :], ord("\n")) + (offsets[0] + 1)
        cuts = np.concatenate([offsets, after_newlines])  # every text's bounds too, so no piece crosses texts
        cuts.sort(kind="stable")
        pieces = pa.LargeStringArray.from_buffers(len(cuts) - 1, pa.py_buffer(cuts), data if data is not None else pa.py_buffer(b""))
        rows = np.searchsorted(offsets, cuts[:-1], side="right") - 1
        lengths = pc.utf8_length(pieces).to_numpy().astype(np.int64)
        starts = exclusive_cumsum_per_row(lengths, rows)
        # empty pieces (a text ending in a newline, an empty text) and blank ones (str.isspace's set) are no paragraphs
        keep = (cuts[1:] > cuts[:-1]) & ~pc.utf8_is_space(pieces).to_numpy(zero_copy_only=False)
        return TextUnits(rows[keep], starts[keep], starts[keep] + lengths[keep], pieces.filter(pa.array(keep)))

    return batch.cached("paragraph_texts", compute)


@tagger("cld2_doc_v2", types=["<language>"], requires="pycld2", check=require_pycld2, vectorized=False)
def cld2_doc_v2(batch: TagBatch):
    return predict_units(documents(batch), each(cld2_languages))


@tagger("cld2_paragraph_v2", types=["<language>"], requires="pycld2", check=require_pycld2, vectorized=False)
def cld2_paragraph_v2(batch: TagBatch):
    return predict_units(paragraph_texts(batch), each(cld2_languages))


@tagger("cld2_en_doc_v2", types=["en", "not_en"], requires="pycld2", check=require_pycld2, vectorized=False)
def cld2_en_doc_v2(batch: TagBatch):
    return with_negatives(predict_units(documents(batch), cld2_english, utf8=True))


@tagger("cld2_en_paragraph_v2", types=["en", "not_en"], requires="pycld2", check=require_pycld2, vectorized=False)
def cld2_en_paragraph_v2(batch: TagBatch):
    return with_negatives(predict_units(paragraph_texts(batch), cld2_english, utf8=True))


def with_document_score(batch: TagBatch, output: dict[str, Spans]) -> dict[str, Spans]:
    """``doc_en``: characters of each paragraph x its English score / len(text); 0 and 0 for an empty text."""
    english = output.get("en", Spans.empty())
    weighted = np.bincount(english.rows, weights=(english.ends - english.starts) * english.scores, minlength=len(batch))
    lengths = batch.lengths
    doc_en = np.where(lengths > 0, weighted / np.maximum(lengths, 1), 0.0)
    doc_not_en = np.where(lengths > 0, 1 - doc_en, 0.0)
    return {**output, "doc_en": Spans.document(lengths, doc_en), "doc_not_en": Spans.document(lengths, doc_not_en)}


@tagger("cld2_en_paragraph_with_doc_score_v2", types=["en", "not_en", "doc_en", "doc_not_en"], requires="pycld2", check=require_pycld2, vectorized=False)
def cld2_en_paragraph_with_doc_score_v2(batch: TagBatch):
    return with_document_score(batch, cld2_en_paragraph_v2(batch))
