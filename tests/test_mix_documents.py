"""Reading the documents a mix writes: lines with exactly dolma's standard fields keep their texts as
the JSON literals they were read as, and must come out byte for byte as if every line had been
decoded into a plain dict, whatever the literals' escapes."""

from __future__ import annotations

import json

import msgspec
import pyarrow as pa
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dolma_sql.mixer import documents as codec
from dolma_sql.formats.lines import line_bytes

# characters whose escaping differs between encoders, or that trimming and byte lengths treat apart
SPECIAL = st.sampled_from(['"', "\\", "/", "\n", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", " ", "\xa0", "\u2028", "\u3000", "é", "😀", "u"])
TEXT = st.text(alphabet=SPECIAL | st.characters(codec="utf-8"), max_size=30) | st.text(alphabet="a \n\\\"é\u3000", max_size=8)  # the second: short texts whose ends decide
SCALAR = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False) | TEXT
STANDARD = st.fixed_dictionaries(
    {
        "id": TEXT | st.integers(0, 10**6),
        "text": TEXT,
        "source": TEXT,
        "added": TEXT,
        "created": TEXT,
        "metadata": st.dictionaries(TEXT, SCALAR | st.lists(SCALAR, max_size=3), max_size=3),
    }
)
DOCUMENT = STANDARD | STANDARD.map(lambda document: {**document, "version": "v1"}) | STANDARD.map(lambda document: {k: v for k, v in document.items() if k != "added"})


def encoded(document: dict, style: str) -> str:
    """One line as different writers escape it: msgspec's own escapes, ``\\uXXXX`` for all non-ASCII, ``\\/`` for slashes."""
    if style == "msgspec":
        return msgspec.json.encode(document).decode()
    line = json.dumps(document, ensure_ascii=style == "ascii")
    return line.replace("/", "\\/") if style == "slashes" else line  # a slash only ever occurs in a string


def lines_of(documents: list[dict], styles: list[str]) -> pa.LargeStringArray:
    return pa.array([encoded(d, style) + "\n" for d, style in zip(documents, styles)], pa.large_string())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(DOCUMENT, st.sampled_from(["msgspec", "utf-8", "ascii", "slashes"])), min_size=1, max_size=6))
def test_documents_read_with_their_literals_are_written_as_if_decoded(rows):
    lines = lines_of([d for d, _ in rows], [s for _, s in rows])
    fast = codec.decode_documents(lines)
    plain = codec.decode_lines(line_bytes(lines))
    assert codec.encode_lines(fast) == codec.encode_lines(plain)
    texts = [document["text"] for document in fast]
    assert [msgspec.json.decode(codec.text_literal(text)) for text in texts] == [document["text"] for document in plain]
    for min_length in (1, 2, 3, 8, 40):
        assert [codec.text_shorter_than(t, min_length) for t in texts] == [codec.shorter_than(d["text"], min_length) for d in plain]


@settings(max_examples=2000, deadline=None)
@example("a\n\n", 2)  # a trailing escape that trimming removes
@example("    a", 2)  # leading spaces
@example("ab\u3000", 4)  # trailing non-ASCII whitespace
@example('a""""b', 6)  # escapes: fewer text bytes than the literal has
@example("a\x01\x01\x01b", 8)  # \u escapes, six bytes for one (an edited text's literal may have them)
@example("ab\x0b", 1)  # a trailing whitespace that msgspec escapes as \u000b
@given(st.text(alphabet="a \n\\\"é\u3000\x85\x01\x0b", max_size=14) | TEXT, st.integers(0, 12))
def test_a_literal_is_shorter_than_a_length_exactly_when_its_text_is(text, min_length):
    literal = msgspec.json.encode(text)
    assert codec.text_shorter_than(msgspec.Raw(literal), min_length) == codec.shorter_than(text, min_length)


def test_standard_documents_keep_their_literals_and_others_are_decoded():
    standard = {"id": "1", "text": "a/b\n", "source": "s", "added": "", "created": "", "metadata": {}}
    kept = codec.decode_documents(lines_of([standard, {**standard, "text": "x"}], ["msgspec", "msgspec"]))
    assert [type(d["text"]) for d in kept] == [msgspec.Raw, msgspec.Raw]
    escaped = codec.decode_documents(lines_of([standard, {**standard, "text": "é"}], ["slashes", "ascii"]))
    assert [d["text"] for d in escaped] == ["a/b\n", "é"]  # the encoder writes these characters as themselves
    other = codec.decode_documents(lines_of([standard, {**standard, "extra": 1}], ["msgspec", "msgspec"]))
    assert [type(d["text"]) for d in other] == [str, str] and other[1]["extra"] == 1
    no_string = codec.decode_documents(lines_of([{**standard, "text": ["a"]}], ["msgspec"]))
    assert no_string[0]["text"] == ["a"]


def test_numbers_keep_their_value_where_upstream_is_one_unit_in_the_last_place_off():
    """A float is read correctly rounded and written as the shortest text of that value, an integer of any size stays
    exact (upstream wrote ``0.422917648389696``, ``1.8446744073709552e19`` and ``9007199254740994.0`` for these)."""
    line = '{"id":"a","text":"t","metadata":{"f":0.42291764838969603,"big":18446744073709551616,"tie":9007199254740993.0,"neg":-0}}\n'
    written = codec.encode_lines(codec.decode_documents(pa.array([line], pa.large_string()))).decode()
    assert '"f":0.42291764838969603' in written and '"big":18446744073709551616' in written and '"tie":9007199254740992.0' in written
    assert '"neg":0,' in written or '"neg":0}' in written  # the integer -0 (upstream writes -0.0)
