"""Reading dolma files as Arrow batches of lines: the one reader under every command.

Files are JSON lines at any storage URL, compressed by extension. Reading yields Arrow string
arrays of whole lines, batch by batch, so memory stays bounded by the batch size, not the file
size; each batch's lines are views of one buffer that the decompressor filled directly.
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import pyarrow as pa

from dolma_sql import storage
from dolma_sql.errors import InputError
from dolma_sql.formats.nesting import decode_each, naming_the_line
from dolma_sql.runtime import progress
from dolma_sql.storage.codecs import DECODER_ERRORS, bytes_after_gzip, codec_of, decompressed_reader

BATCH_BYTES = 8 << 20
"""Decompressed bytes per line batch, for every command: large enough to amortise Arrow/DuckDB calls, small
enough to bound memory (taggers and the deduper keep several arrays derived from a batch: words, n-gram
hashes, paragraphs)."""


MASK_BYTES = 1 << 20
"""Bytes compared at a time when looking for newlines: a mask as long as a batch would stay resident in
every open reader (the mixer keeps one per attribute set) for no gain in speed."""


def open_reader(path: str, codec: str | None = None) -> BinaryIO:
    """A binary reader of ``path``'s decompressed content (by extension, or by ``codec`` when given)."""
    return decompressed_reader(storage.open_input(path), codec_of(path) if codec is None else codec)


@dataclass(frozen=True)
class LineBatch:
    """Consecutive lines of one file.

    ``lines[i]`` is line ``first_line + i`` (1-based) and keeps its ``\\n`` terminator
    (JSON parsers ignore it, and keeping it lets the array share the decompressed buffer).
    """

    path: str
    first_line: int
    lines: pa.StringArray

    def __len__(self) -> int:
        return len(self.lines)


def iter_line_batches(
    path: str,
    *,
    codec: str | None = None,
    batch_bytes: int = BATCH_BYTES,
    count_progress: bool = False,
    staging: str | None = None,
    opened: BinaryIO | None = None,
) -> Iterator[LineBatch]:
    """Yield the lines of ``path`` as Arrow string batches, validating UTF-8.

    Each batch's lines are views of one buffer that the decompressor filled directly (after the
    previous batch's unfinished last line), so no batch is copied on the way to Arrow.
    Invalid UTF-8 is an :class:`InputError` naming the file and line (upstream silently
    drops the rest of the file). With ``count_progress`` the (compressed) bytes read are added to
    the run's progress as each batch is read, so a large file shows progress while it runs.
    A remote file is streamed, or with ``staging`` (dolma's ``work_dir.input``) downloaded into that
    local folder first (see :func:`dolma_sql.storage.open_input`); ``opened``: its raw bytes, opened already.
    """
    next_line = 1
    newlines = np.empty(min(batch_bytes, MASK_BYTES), dtype=bool)  # reused: a fresh mask per batch costs as many page faults as the data
    try:
        raw = opened or storage.open_input(path, staging=staging, sequential=True)
    except OSError as error:
        raise InputError(f"cannot open: {error.strerror or error}", path=path) from error
    reported = 0
    with decompressed_reader(raw, codec_of(path) if codec is None else codec) as reader:
        buffer = _ReadBuffer(np.empty(batch_bytes, dtype=np.uint8))  # not zeroed: pages past the data stay untouched
        filled = 0
        while True:
            unfinished = filled  # the start of the buffer holds the previous batch's unfinished last line: no newline
            filled += _read_into(reader, memoryview(buffer.array)[filled:], path)
            ends = positions_of(buffer.array[unfinished:filled], 10, newlines) + (unfinished + 1)  # one past each newline
            at_end = filled < len(buffer.array)
            if at_end and filled > (ends[-1] if len(ends) else 0):
                ends = np.append(ends, filled)  # a last line without a newline
            if count_progress:
                position = raw.tell()
                progress.advance(bytes_read=position - reported)
                reported = position
            if len(ends):
                batch = _to_batch(path, next_line, buffer.array, ends)
                next_line += len(batch)
                yield batch
            if at_end:
                return
            if not len(ends):  # a line longer than the buffer
                buffer.double()
                continue
            rest = buffer.array[ends[-1] : filled]  # the unfinished line moves to a new buffer, with room for a batch more
            buffer = _ReadBuffer(np.empty(len(rest) + batch_bytes, dtype=np.uint8))
            buffer.array[: len(rest)] = rest
            filled = len(rest)


class _ReadBuffer:
    """The bytes that a batch is read into. One that holds a single unfinished line (longer than a batch) is
    doubled in place: moved once into an anonymous mapping, which the kernel then enlarges without copying,
    so a huge line costs its length in memory, not its length again for each copy (or freed copies that
    the allocator keeps)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self._mapping: mmap.mmap | None = None

    def double(self) -> None:
        size = 2 * len(self.array)
        if self._mapping is not None:
            self.array = None  # the mapping resizes only when no array views it
            try:
                self._mapping.resize(size)
                self.array = np.frombuffer(self._mapping, dtype=np.uint8)
                return
            except (OSError, ValueError, SystemError):  # no mremap here: copy instead
                self.array = np.frombuffer(self._mapping, dtype=np.uint8)
        mapping = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        array = np.frombuffer(mapping, dtype=np.uint8)
        array[: len(self.array)] = self.array
        self.array, self._mapping = array, mapping


def positions_of(data: np.ndarray, byte: int, mask: np.ndarray | None = None, *, compare: np.ufunc = np.equal) -> np.ndarray:
    """Where ``data`` holds ``byte`` (or, with another ``compare``, where ``compare(data, byte)`` holds), compared
    a ``mask``'s length at a time (by default one batch's): a mask as long as a huge line would cost its size in
    memory again. A reused mask also saves its page faults."""
    if mask is None:
        mask = np.empty(min(len(data), BATCH_BYTES), dtype=bool)
    found = []
    for at in range(0, len(data), max(len(mask), 1)):
        piece = data[at : at + len(mask)]
        found.append(np.flatnonzero(compare(piece, byte, out=mask[: len(piece)])) + at)
    return found[0] if len(found) == 1 else np.concatenate(found) if found else np.empty(0, dtype=np.int64)


def head_lines(path: str, max_bytes: int) -> LineBatch | None:
    """The first batch of whole lines within ``max_bytes`` of ``path`` (at least one line); None for an empty file.

    For samples (keys, fields) that must not cost a read of the whole file; the file is closed at once.
    """
    batches = iter_line_batches(path, batch_bytes=max_bytes)
    try:
        return next(batches, None)
    finally:
        batches.close()


def read_decompressed(path: str) -> bytes:
    """The whole decompressed content of ``path`` (for files small enough to hold, such as attribute files)."""
    with open_reader(path) as reader, _decompressing(path):
        return reader.read()


def _read_into(reader: BinaryIO, target: memoryview, path: str) -> int:
    """Fill ``target`` from ``reader`` (short only at the end of the file); returns the bytes read."""
    filled = 0
    with _decompressing(path):
        while filled < len(target):
            count = reader.readinto(target[filled:])
            if not count:
                break
            filled += count
    return filled


@contextlib.contextmanager
def _decompressing(path: str) -> Iterator[None]:
    """Turn a decoder's complaint (truncated or corrupt data) into an error naming the file."""
    try:
        yield
    except DECODER_ERRORS as error:
        extra = _bytes_after_gzip(path) if codec_of(path) == "gz" else 0
        if extra:
            raise InputError(
                f"cannot decompress: {extra:,} bytes after the end of its gzip data are not gzip data",
                path=path,
                hint="the file was appended to or damaged after it was written: remove what follows the gzip data, or write it again",
            ) from error
        raise InputError(
            f"cannot decompress ({error})",
            path=path,
            hint="check that the file is complete and that its extension matches its compression",
        ) from error


def _bytes_after_gzip(path: str) -> int:
    try:
        with storage.open_input(path) as raw:
            return bytes_after_gzip(raw)
    except Exception:  # only a better message is at stake: the decoder's own stands
        return 0


def _to_batch(path: str, first_line: int, buffer: np.ndarray, ends: np.ndarray) -> LineBatch:
    """The lines of ``buffer`` that end at ``ends``, as an Arrow array over that buffer."""
    offsets = np.empty(len(ends) + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1:] = ends
    binary = pa.LargeBinaryArray.from_buffers(pa.large_binary(), len(ends), [None, pa.py_buffer(offsets), pa.py_buffer(buffer)])
    try:
        lines = binary.cast(pa.large_string())
    except pa.ArrowInvalid:
        bad = _first_invalid_utf8(binary)
        compressed = _compressed_as(bytes(buffer[:6])) if first_line + bad == 1 else None
        raise InputError(
            "invalid UTF-8" + (f": the file is {compressed[0]}-compressed, but its name does not say so" if compressed else ""),
            path=path,
            line=first_line + bad,
            hint=_compressed_hint(compressed) if compressed else "re-encode the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`) or drop the line",
        ) from None
    return LineBatch(path=path, first_line=first_line, lines=lines)


COMPRESSION_MAGIC = {b"\x1f\x8b": ("gzip", ".gz"), b"\x28\xb5\x2f\xfd": ("zstd", ".zst"), b"BZh": ("bzip2", None), b"\xfd7zXZ\x00": ("xz", None)}
"""How compressed files begin, with the extension that reads them (None: dolma reads no such file). A file read as
text that begins so was misnamed (``.zstd`` for ``.zst``)."""


def _compressed_as(head: bytes) -> tuple[str, str | None] | None:
    return next((kind for magic, kind in COMPRESSION_MAGIC.items() if head.startswith(magic)), None)


def _compressed_hint(compressed: tuple[str, str | None]) -> str:
    extension = compressed[1]
    return f"name it with the {extension} extension" if extension else "recompress it with gzip (.gz) or zstd (.zst), the compressions dolma reads"


def _first_invalid_utf8(binary: pa.LargeBinaryArray) -> int:
    for index, value in enumerate(binary.to_pylist()):
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            return index
    raise AssertionError("no invalid line found")  # pragma: no cover


def line_offsets(lines: pa.LargeStringArray) -> np.ndarray:
    """The byte offsets of a large-string array's values in its data buffer (a view, no copy)."""
    return np.frombuffer(lines.buffers()[1], dtype=np.int64, count=len(lines) + 1, offset=lines.offset * 8)


def line_bytes(lines: pa.LargeStringArray) -> memoryview:
    """The UTF-8 bytes of consecutive lines (each keeps its ``\\n``), without copying: JSON lines for ``decode_lines``."""
    offsets = line_offsets(lines)
    return memoryview(lines.buffers()[2])[offsets[0] : offsets[-1]]


def decode_object(text: str, *, path: str, line: int, hint: str | None = None) -> dict:
    """Decode one line that must be a JSON object; anything else is an InputError naming file and line (with ``hint``,
    else one that fits what is wrong)."""
    import msgspec

    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as error:
        blank = not text.strip()
        hint = hint or ("blank lines are not allowed: remove it" if blank else "each line must be one JSON object: fix or remove this one")
        raise InputError(f"malformed JSON ({error})", path=path, line=line, hint=hint) from None
    except RecursionError:  # nested deeper than Python recurses
        with naming_the_line(path, [line]):
            value = decode_each([text], msgspec.json.decode)[0]
    if not isinstance(value, dict):
        raise InputError(f"expected a JSON object, got {type(value).__name__}", path=path, line=line, hint=hint or "each line must be one JSON object")
    return value


def raise_first_malformed(batch: LineBatch) -> None:
    """Find the first line that is not a JSON object and raise an error naming it (only on the error path)."""
    for index, line in enumerate(batch.lines.to_pylist()):
        decode_object(line, path=batch.path, line=batch.first_line + index)
