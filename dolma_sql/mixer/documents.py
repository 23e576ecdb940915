"""The documents codec of the mixer: kept lines decoded to dicts, texts measured, documents encoded.

A batch whose lines all have exactly dolma's standard fields keeps each text as the JSON literal it
was read as (``msgspec.Raw``, which the encoder copies verbatim): decoding every text into a Python
string only to turn it into UTF-8 again was most of the time of reading documents. Texts are edited
as these literals too (:func:`dolma_sql.spans.apply_spans_to_literals`), and ``min_text_length`` is
decided from a literal's bytes where they leave no doubt.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.formats.lines import line_bytes, line_offsets, positions_of
from dolma_sql.formats.nesting import decode_each, on_deep_stack
from dolma_sql.text import UNICODE_WHITESPACE

decode_json = msgspec.json.Decoder().decode
decode_lines = msgspec.json.Decoder().decode_lines
encode_lines = msgspec.json.Encoder(order="sorted").encode_lines
"""Documents are written as compact JSON with keys sorted at every depth, as dolma does."""


def select_rows(lines: pa.Array, rows: np.ndarray) -> pa.Array:
    """``lines[rows]``: a view when the rows follow one another (all of a batch, or one huge line), else a copy."""
    if len(rows) and rows[-1] - rows[0] + 1 == len(rows):
        return lines.slice(int(rows[0]), len(rows))
    return lines.take(pa.array(rows))


def encode_documents(documents: list[dict]) -> bytes:
    """Documents as lines of :data:`encode_lines` (see :mod:`dolma_sql.formats.nesting` for those nested deeper than Python recurses)."""
    try:
        return encode_lines(documents)
    except RecursionError:
        return on_deep_stack(encode_lines, documents)


def decode_values(values: list[str]) -> list:
    """JSON texts decoded (attribute lines); one nested too deep is a :class:`~dolma_sql.formats.nesting.NestedTooDeep` naming its row."""
    try:
        return [decode_json(value) for value in values]
    except RecursionError:
        return decode_each(values, decode_json)

TEXTS = (str, msgspec.Raw)
"""The types a decoded document's text may have (anything else is no string text)."""


class _StandardDocument(msgspec.Struct, forbid_unknown_fields=True):
    """A document with exactly dolma's standard fields; its text stays the JSON literal it was read as."""

    added: Any
    created: Any
    id: Any
    metadata: Any
    source: Any
    text: msgspec.Raw


class _SomeStandardFields(msgspec.Struct, forbid_unknown_fields=True):
    """A document with some of dolma's standard fields and no other (``added`` or ``metadata`` left out)."""

    added: Any = msgspec.UNSET
    created: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    metadata: Any = msgspec.UNSET
    source: Any = msgspec.UNSET
    text: msgspec.Raw = msgspec.UNSET


class _Text(msgspec.Struct):
    text: str


_decode_standard_lines = msgspec.json.Decoder(_StandardDocument).decode_lines
_decode_some_standard_lines = msgspec.json.Decoder(_SomeStandardFields).decode_lines
_decode_text_lines = msgspec.json.Decoder(_Text).decode_lines
_decode_text = msgspec.json.Decoder(_Text).decode

_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_PLAIN = frozenset(range(0x21, 0x7F)) - {_BACKSLASH}
"""Bytes that, as the first or last of a literal's text, are that text's first or last character and no whitespace."""
_WHITESPACE = frozenset(UNICODE_WHITESPACE)


def decode_documents(lines: pa.LargeStringArray) -> list[dict]:
    """Document lines as dicts whose texts stay the JSON literals they were read as, wherever a literal is
    the one the encoder would write.

    Only a batch whose lines all have dolma's standard fields and no other is decoded this way (any other
    into plain dicts), so that a huge text is never copied. A text that is no string, and one whose line has a ``\\u`` or ``\\/`` escape (the
    encoder writes the character itself), are decoded. A batch with a line nested deeper than Python
    recurses is decoded into plain dicts on a deep stack (:mod:`dolma_sql.formats.nesting`).
    """
    try:
        return _decode_documents(lines)
    except RecursionError:
        return decode_each(lines.to_pylist(), decode_json)


def _decode_documents(lines: pa.LargeStringArray) -> list[dict]:
    data = line_bytes(lines)
    try:
        documents = list(map(msgspec.structs.asdict, _decode_standard_lines(data)))
    except msgspec.ValidationError:
        try:
            documents = [_set_fields(document) for document in _decode_some_standard_lines(data)]
        except msgspec.ValidationError:
            return decode_lines(data)
    for row in _rows_with_rewritten_escapes(lines).tolist():
        if "text" in documents[row]:
            documents[row]["text"] = decode_json(documents[row]["text"])
    for document in documents:
        text = document.get("text")
        if type(text) is msgspec.Raw and memoryview(text)[0] != _QUOTE:  # no string: reported by the caller
            document["text"] = decode_json(text)
    return documents


def _set_fields(document: _SomeStandardFields) -> dict:
    return {name: value for name, value in msgspec.structs.asdict(document).items() if value is not msgspec.UNSET}


def decode_texts(lines: pa.LargeStringArray) -> pa.LargeStringArray:
    """Only the texts of document lines, as one Arrow array (what a dry run edits)."""
    try:
        documents = _decode_text_lines(line_bytes(lines))
    except RecursionError:
        documents = decode_each(lines.to_pylist(), _decode_text)
    return pa.array([document.text for document in documents], pa.large_string())


def _rows_with_rewritten_escapes(lines: pa.LargeStringArray) -> np.ndarray:
    """The lines with a backslash before a ``u`` or a ``/`` (a ``\\u`` or ``\\/`` escape, or an escaped backslash):
    one numpy pass, where searching each text took longer than decoding it (web text has a backslash escape every few lines)."""
    offsets = line_offsets(lines)
    data = np.frombuffer(line_bytes(lines), dtype=np.uint8)
    backslashes = positions_of(data[:-1], _BACKSLASH)
    escaped = data[backslashes + 1]
    rewritten = backslashes[(escaped == ord("u")) | (escaped == ord("/"))]
    return np.unique(np.searchsorted(offsets[1:] - offsets[0], rewritten, side="right"))


def text_literal(text: str | msgspec.Raw) -> bytes | msgspec.Raw:
    """A text as the JSON string literal the encoder writes for it: a literal kept by :func:`decode_documents` as it is."""
    return text if type(text) is msgspec.Raw else msgspec.json.encode(text)


def text_shorter_than(text: str | msgspec.Raw, min_length: int) -> bool:
    """:func:`shorter_than` for a text or its JSON literal, which is decoded only when its ends or its length leave a doubt.

    An escape in a literal msgspec writes is at most six bytes (``\\u001f``) for at least one, so its
    text has at least a sixth of its bytes; trimming removes nothing when both ends are plain
    characters, neither a backslash's nor a ``\\u`` escape's.
    """
    if type(text) is msgspec.Raw:
        literal = memoryview(text)
        inside = len(literal) - 2
        if (
            0 < inside
            and inside // 6 >= min_length
            and literal[1] in _PLAIN
            and literal[-2] in _PLAIN
            and literal[-3] != _BACKSLASH
            and literal[-6:-4] != b"\\u"
        ):
            return False
        text = decode_json(literal)
    return shorter_than(text, min_length)


def shorter_than(text: str, min_length: int) -> bool:
    """Whether ``text`` trimmed of Unicode whitespace has fewer than ``min_length`` UTF-8 bytes (``min_text_length``'s measure).

    Copies nothing for the usual text, whose ends are no whitespace and whose code points alone
    reach ``min_length`` (a code point is at least one byte).
    """
    if not text or text[0] in _WHITESPACE or text[-1] in _WHITESPACE:
        text = text.strip(UNICODE_WHITESPACE)
    return len(text) < min_length and _utf8_length(text) < min_length


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))  # isascii() reads a flag: no copy


def trimmed_utf8_lengths(texts: pa.Array) -> np.ndarray:
    """The UTF-8 length of each text trimmed of Unicode whitespace (``min_text_length``'s measure, for an array)."""
    return pc.binary_length(pc.utf8_trim(texts, characters=UNICODE_WHITESPACE).cast(pa.large_binary())).to_numpy()


def utf8_lengths(texts: pa.Array) -> np.ndarray:
    """The UTF-8 length of each text."""
    return pc.binary_length(texts.cast(pa.large_binary())).to_numpy()
