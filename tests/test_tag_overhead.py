"""The short cuts around the tag kernels (issue 21) give what the plain ways give.

- ``cld2_english`` (the English CLD2 taggers' detector: flat scores, no list per text, UTF-8 bytes or
  ``str``) against ``english_only(cld2_languages(text))``, CLD2's retry path included;
- ``predict_units`` with flat predictions against the same predictions as lists;
- ``encode_attribute_fields`` (one span a row needs no join) against each row's JSON built by msgspec,
  and ``format_floats`` (Arrow's float text where it is msgspec's) against msgspec for any float;
- ``paragraph_texts`` (the detectors' paragraphs cut from the text bytes after every newline) against
  dolma's paragraph regex over each text, blank paragraphs dropped;
- gopher's ``required_word_count``, ``fraction_of_words_with_alpha_character`` and ``symbol_to_word_ratio``
  (each distinct word of a batch tested once) against ``str.split()``, membership, ``str.isalpha`` and ``in``.
"""

from __future__ import annotations

import re

import msgspec
import numpy as np
import polars as pl
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from dolma_sql.formats.attributes import PLAIN_FLOATS, Spans, encode_attribute_fields, format_floats, round_scores
from dolma_sql.tagger.batch import TagBatch
from dolma_sql.udfs.gopher import REQUIRED_ENGLISH_WORDS, gopher_v1
from dolma_sql.udfs.language import _CODES, ENGLISH, FlatPredictions, cld2_english, cld2_languages, each, english_only, paragraph_texts, predict_units
from dolma_sql.udfs.text import Segments

TEXTS = [
    "The quick brown fox jumps over the lazy dog, and then it runs back home again.\n",
    "Le renard brun rapide saute par-dessus le chien paresseux, puis il rentre chez lui.",
    "The quick brown fox jumps over the lazy dog. Le renard brun saute par-dessus le chien paresseux.",
    "Der schnelle braune Fuchs springt über den faulen Hund und läuft dann wieder nach Hause.",
    "これは日本語の文です。日本語の文章をもう少し長く書いてみます。",
    "",
    "ok",
    "1234 !!! ???",
    "abc\x00def control characters make CLD2 refuse the text, so it is retried",
    "hello \x85 world, a C1 control character: English text that CLD2 first rejects",
    "\ufffe a noncharacter at the start of an English sentence about nothing much",
    "Bonjour tout le monde, comment allez-vous? " * 6 + "Hello world, how are you doing today? " * 2,  # English second
]


def test_cld2_english_equals_english_only_of_cld2_languages():
    flat = cld2_english(TEXTS)
    expected = FlatPredictions.of([english_only(cld2_languages(text)) for text in TEXTS])
    assert flat.counts.tolist() == expected.counts.tolist()
    assert flat.languages.tolist() == expected.languages.tolist()
    assert flat.scores.tolist() == expected.scores.tolist()
    assert any(score > 0 for score in flat.scores) and any(score == 0 for score in flat.scores)
    as_bytes = cld2_english([text.encode() for text in TEXTS])  # as the English CLD2 taggers hand it the texts
    assert (as_bytes.counts.tolist(), as_bytes.scores.tolist()) == (flat.counts.tolist(), flat.scores.tolist())


def test_english_is_the_only_cld2_language_whose_code_is_en():
    import pycld2

    assert [name for name, _ in pycld2.LANGUAGES if _CODES[name] == "en"] == [ENGLISH]
    assert [answer[0] for answer in pycld2.detect(TEXTS[-1])[2]][:2] == ["FRENCH", ENGLISH]  # the test above reads a second English


def test_flat_predictions_lay_out_spans_as_lists_do():
    repeated = TEXTS + TEXTS[:4] + ["", "ok"]
    units = Segments(
        rows=np.arange(len(repeated), dtype=np.int64) // 2,
        starts=np.arange(len(repeated), dtype=np.int64),
        ends=np.arange(len(repeated), dtype=np.int64) + 5,
        text=pl.Series("text", repeated, dtype=pl.String),
    )
    two_languages = each(lambda text: [("en", len(text) / 100), ("fr", 0.5)] if "fox" in text else [("de", 0.25)])
    for predict in (two_languages, each(lambda text: english_only(cld2_languages(text)))):
        as_lists = predict_units(units, predict)
        as_flat = predict_units(units, lambda texts, predict=predict: FlatPredictions.of(predict(texts)))
        assert list(as_lists) == list(as_flat)
        for language, spans in as_lists.items():
            for name in ("rows", "starts", "ends", "scores"):
                assert getattr(spans, name).tolist() == getattr(as_flat[language], name).tolist()
    reference = predict_units(units, each(lambda text: english_only(cld2_languages(text))))
    for english in (predict_units(units, cld2_english), predict_units(units, cld2_english, utf8=True)):
        assert list(english) == ["en"]
        for name in ("rows", "starts", "ends", "scores"):
            assert getattr(english["en"], name).tolist() == getattr(reference["en"], name).tolist()


@st.composite
def keyed_spans(draw):
    n_rows = draw(st.integers(0, 6))
    keyed = []
    for index in range(draw(st.integers(0, 4))):
        per_row = draw(st.lists(st.integers(0, 3) if draw(st.booleans()) else st.integers(0, 1), min_size=n_rows, max_size=n_rows))
        if draw(st.booleans()):  # a document-level score: one span in every row
            per_row = [1] * n_rows
        rows = np.repeat(np.arange(n_rows), per_row)
        starts = np.array(draw(st.lists(st.integers(0, 10**6), min_size=len(rows), max_size=len(rows))), dtype=np.int64)
        ends = starts + np.array(draw(st.lists(st.integers(0, 10**4), min_size=len(rows), max_size=len(rows))), dtype=np.int64)
        scores = draw(st.lists(st.floats(-2, 2, allow_nan=False) | st.sampled_from([0.0, 1.0, 0.5, 1e-5]), min_size=len(rows), max_size=len(rows)))
        always = draw(st.sampled_from([True, False, None]))
        if always is None:
            always = np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows)), dtype=bool)
        keyed.append((f"key_{index}", Spans(rows, starts, ends, scores), always))
    return n_rows, keyed


@settings(max_examples=150, deadline=None)
@given(keyed_spans())
def test_attribute_fields_equal_each_rows_json(case):
    n_rows, keyed = case
    expected = []
    for row in range(n_rows):
        attributes = {}
        for key, spans, always in keyed:
            mine = spans.rows == row
            if mine.any() or (always if isinstance(always, bool) else always[row]):
                attributes[key] = [[int(s), int(e), float(v)] for s, e, v in zip(spans.starts[mine], spans.ends[mine], round_scores(spans.scores[mine]))]
        expected.append(msgspec.json.encode(attributes).decode())
    assert encode_attribute_fields(n_rows, keyed).to_pylist() == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([*REQUIRED_ENGLISH_WORDS, "The", "the,", "tо", "ofthe", "a", "withhold", "\u00e9t\u00e9", "",
                                          "123", "!?", "\u65e5\u672c", "\u00bd", "1a", "\u0661\u0662", "#", "a#b#", "\u2026", "x\u2026"]),
                         max_size=12), max_size=5))
def test_required_alphabetic_and_symbol_words_count_split_words(documents):
    texts = [" ".join(words) + ("\nand\tthe " if index % 2 else "") for index, words in enumerate(documents)]
    batch = TagBatch(pa.table({"id": [str(i) for i in range(len(texts))], "text": texts, "source": ["s"] * len(texts)}))
    output = gopher_v1(batch)
    expected = [float(sum(word in REQUIRED_ENGLISH_WORDS for word in text.split())) for text in texts]
    assert output["required_word_count"].scores.tolist() == expected
    alphabetic = [sum(any(c.isalpha() for c in word) for word in text.split()) / max(len(text.split()), 1) for text in texts]
    assert output["fraction_of_words_with_alpha_character"].scores.tolist() == alphabetic
    symbols = [sum("#" in word or "\u2026" in word for word in text.split()) / max(len(text.split()), 1) for text in texts]
    assert output["symbol_to_word_ratio"].scores.tolist() == symbols


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.floats(-1e11, 1e11) | st.integers(-10**12, 10**12).map(float)
                | st.floats(1e-6, 1e-3).map(lambda v: round(v, 5)) | st.sampled_from([*PLAIN_FLOATS, -0.0, 0.0]), max_size=40))
def test_format_floats_writes_what_msgspec_writes(values):
    assert format_floats(np.array(values, dtype=np.float64)).to_pylist() == [msgspec.json.encode(value).decode() for value in values]


def test_format_floats_over_a_million_plain_values():
    rng = np.random.default_rng(0)
    values = 10.0 ** rng.uniform(-4, 10, 400_000)
    values = np.concatenate([values, np.round(values, 5), np.round(values), -np.round(values, 3)])
    assert format_floats(values).to_pylist() == [msgspec.json.encode(value).decode() for value in values.tolist()]


PARAGRAPH = re.compile(r"[^\n]*\n|[^\n]+$")
"""dolma's ``split_paragraphs``: each paragraph with its newline, the text after the last newline if any."""


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["\n", " ", "\t", "\x1c", "\u2028", "\xa0", "\u3000", "a", "bc", "\u00e9", "\u65e5", "\U0001f600", "\x85"]), max_size=14).map("".join), max_size=8),
    st.integers(0, 3),
    st.integers(0, 8),
)
def test_paragraph_texts_are_dolmas_paragraphs_with_their_newline(texts, first, count):
    batch = TagBatch(pa.table({"text": pa.array(texts, pa.string())}).slice(first, count))  # a slice: offsets not from zero
    expected = [
        (row, match.start(), match.end(), match.group())
        for row, text in enumerate(texts[first : first + count])
        for match in PARAGRAPH.finditer(text)
        if not match.group().isspace()
    ]
    units = paragraph_texts(batch)
    got = list(zip(units.rows.tolist(), units.starts.tolist(), units.ends.tolist(), units.text.to_pylist()))
    assert got == expected
