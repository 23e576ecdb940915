"""Line batches: whatever the batch size and compression, batches are the file's lines, in order,
numbered from 1, each keeping its newline; and the mixer's attribute cursor hands out exactly the
lines asked for across its batch boundaries."""

from __future__ import annotations

import gzip
import io
import re

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dolma_sql.errors import InputError
from dolma_sql.formats.lines import iter_line_batches, open_reader, read_decompressed
from dolma_sql.mixer.shard import LineCursor
from dolma_sql.storage.codecs import bytes_after_gzip

LINES = st.lists(st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=40), max_size=30)
COMPRESSORS = {"jsonl": lambda data: data, "jsonl.gz": gzip.compress, "jsonl.zst": zstandard.ZstdCompressor().compress}


def write(tmp_path, data: str, suffix: str) -> str:
    path = tmp_path / f"part.{suffix}"
    path.write_bytes(COMPRESSORS[suffix](data.encode()))
    return str(path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=LINES, batch_bytes=st.integers(1, 64), suffix=st.sampled_from(sorted(COMPRESSORS)), trailing_newline=st.booleans())
def test_batches_are_the_lines_of_the_file(tmp_path, lines, batch_bytes, suffix, trailing_newline):
    data = "\n".join(lines) + ("\n" if trailing_newline and lines else "")
    path = write(tmp_path, data, suffix)
    expected = re.findall(r"[^\n]*\n|[^\n]+\Z", data)  # a line ends at a newline, or at the end when not empty
    seen, next_line = [], 1
    for batch in iter_line_batches(path, batch_bytes=batch_bytes):
        assert batch.first_line == next_line and len(batch) > 0
        seen.extend(batch.lines.to_pylist())
        next_line += len(batch)
    assert seen == expected


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a": "\xff"}\n')
    with pytest.raises(InputError, match="invalid UTF-8") as error:
        list(iter_line_batches(str(path), batch_bytes=4))
    assert error.value.line == 3


@pytest.mark.parametrize(
    "name,compress,says",
    [
        ("part.jsonl.zstd", zstandard.ZstdCompressor().compress, "zstd-compressed, .zst"),
        ("part.json", gzip.compress, "gzip-compressed, .gz"),
        ("part.jsonl.bz2", __import__("bz2").compress, "bzip2-compressed, recompress it with gzip"),
    ],
)
def test_a_compressed_file_whose_name_does_not_say_so_is_named_as_such(tmp_path, name, compress, says):
    (tmp_path / name).write_bytes(compress(b'{"a": 1}\n' * 100))
    with pytest.raises(InputError) as error:
        list(iter_line_batches(str(tmp_path / name)))
    kind, advice = says.split(", ")
    assert f"invalid UTF-8: the file is {kind}, but its name does not say so" in error.value.message
    assert advice in error.value.hint and error.value.line == 1


def test_gzip_members_are_read_in_turn(tmp_path):
    path = tmp_path / "part.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n{"a": 2}') + gzip.compress(b'\n{"a": 3}\n'))
    assert [line for batch in iter_line_batches(str(path), batch_bytes=5) for line in batch.lines.to_pylist()] == [
        '{"a": 1}\n', '{"a": 2}\n', '{"a": 3}\n'
    ]
    with open_reader(str(path)) as reader:
        assert reader.read() == b'{"a": 1}\n{"a": 2}\n{"a": 3}\n'


@pytest.mark.parametrize(("damage", "said"), [("truncated", "end-of-stream"), ("corrupt", "cannot decompress"), ("appended", "13 bytes after the end")])
def test_damaged_gzip_is_an_error_naming_the_file(tmp_path, damage, said):
    data = gzip.compress("".join(f'{{"id": "{i}", "text": "{i * 7919}"}}\n' for i in range(2000)).encode())
    damaged = {
        "truncated": lambda: data[: len(data) // 2],
        "corrupt": lambda: data[:20] + bytes(b ^ 0x5A for b in data[20:60]) + data[60:],
        "appended": lambda: data + gzip.compress(b'{"id": "more"}\n') + b"not gzip data",  # after a complete second member
    }[damage]()
    path = tmp_path / "part.jsonl.gz"
    path.write_bytes(damaged)
    for read in (lambda: list(iter_line_batches(str(path))), lambda: read_decompressed(str(path))):
        with pytest.raises(InputError, match="cannot decompress") as error:
            read()
        assert error.value.path == str(path) and said in error.value.message


@settings(max_examples=50, deadline=None)
@given(
    members=st.lists(st.binary(max_size=3000), min_size=1, max_size=4),
    tail=st.binary(max_size=40).filter(lambda tail: not tail.startswith(b"\x1f")),  # no start of another member
    cut=st.integers(1, 30),
    chunk=st.integers(1, 64),
)
def test_bytes_after_gzip_are_what_follows_the_last_member(members, tail, cut, chunk):
    data = b"".join(gzip.compress(member) for member in members)
    assert bytes_after_gzip(io.BytesIO(data + tail), chunk) == len(tail)
    assert bytes_after_gzip(io.BytesIO(data[:-cut]), chunk) == 0  # ends inside a member: truncated, nothing after it


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(0, 40), batch_bytes=st.integers(1, 40), takes=st.lists(st.integers(0, 15), max_size=12))
def test_cursor_hands_out_exact_line_runs(tmp_path, count, batch_bytes, takes):
    lines = [f'{{"id": "{i}"}}' for i in range(count)]
    cursor = LineCursor(write(tmp_path, "".join(line + "\n" for line in lines), "jsonl.gz"), batch_bytes=batch_bytes)
    position = 0
    for n in takes:
        taken = cursor.take(n).to_pylist()
        assert taken == [line + "\n" for line in lines[position : position + n]]
        position += len(taken)
        assert cursor.lines_read == position
    assert cursor.has_more() == (position < count)


@pytest.mark.parametrize("line,message,hint", [
    ("[1, 2]", "expected a JSON object, got list", "each line must be one JSON object"),
    ('{"id": "2", "text": ', "malformed JSON", "fix or remove this one"),
    ("", "malformed JSON", "blank lines are not allowed"),
])
def test_a_document_line_that_is_no_object_is_named_for_what_it_is(tmp_path, line, message, hint):
    """Not 'document has no string field': a list, a cut line or a blank line says so, with the hint that fits it."""
    from dolma_sql.formats.documents import iter_document_batches

    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "1", "text": "a"}\n' + line + "\n")
    with pytest.raises(InputError) as error:
        list(iter_document_batches(str(path), fields=("id", "text"), required=("id", "text")))
    assert error.value.line == 2 and message in str(error.value) and hint in error.value.hint
