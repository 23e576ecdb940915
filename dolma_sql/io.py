"""Readers and writers for dolma-layout files.

Files are JSON lines, compressed by extension (``.gz`` gzip, multi-member allowed;
``.zst`` zstd; anything else plain). Reading yields Arrow string arrays of whole lines,
batch by batch, so memory stays bounded by the batch size, not the file size. Writing goes
to ``<path>.tmp`` and is renamed on success, so a crash never leaves a half-written output
under its final name.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow as pa
import zstandard
from isal import igzip, isal_zlib

from dolma_sql.errors import InputError
from dolma_sql.layout import codec_of

BATCH_BYTES = 8 << 20
"""Decompressed bytes per line batch, for every command: large enough to amortise Arrow/DuckDB calls, small
enough to bound memory (taggers and the deduper keep several arrays derived from a batch: words, n-gram
hashes, paragraphs). Mixing the 200k-document bench, against 16 MiB: 5% less CPU, almost half the system
time (fewer pages to fault in) and 15% less RSS; 4 MiB is no faster. The mixer plans its query once per
shard, not per batch."""

GZIP_LEVEL = 2
"""ISA-L gzip level for outputs (0-3), ISA-L's default. On the mix bench's shards levels 0, 1 and 2 take the
same time (a tenth of zlib level 6's) and level 2 writes 5% less than level 1 (zlib 6: 11% less); level 3 takes
40% longer for 3% less. Set ``DOLMA_SQL_GZIP_LEVEL`` to change it."""

ZSTD_LEVEL = 3


def open_reader(path: str, codec: str | None = None) -> BinaryIO:
    """A binary reader that decompresses by extension (or by ``codec`` when given)."""
    codec = codec_of(path) if codec is None else codec
    raw = open(path, "rb")
    if codec == "gz":
        return _GzipReader(raw)
    if codec == "zst":
        return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=True)
    return raw


class _GzipReader(io.RawIOBase):
    """ISA-L's gzip decoder (multi-member) as a raw stream whose ``readinto`` decompresses straight
    into the caller's buffer.

    ``IGzipFile.readinto`` reads into a new bytes object and copies it over: for each batch, an
    allocation of fresh (kernel-zeroed) pages and a copy, a fifth of the decompression time.
    """

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._decoder = isal_zlib._GzipReader(raw)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self._decoder.readinto(buffer)

    def readall(self) -> bytes:
        return self._decoder.readall()

    def close(self) -> None:
        if not self.closed:
            self._decoder.close()
            self._raw.close()
        super().close()


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


def iter_line_batches(path: str, *, codec: str | None = None, batch_bytes: int = BATCH_BYTES) -> Iterator[LineBatch]:
    """Yield the lines of ``path`` as Arrow string batches, validating UTF-8.

    Each batch's lines are views of one buffer that the decompressor filled directly (after the
    previous batch's unfinished last line), so no batch is copied on the way to Arrow.
    Invalid UTF-8 is an :class:`InputError` naming the file and line (upstream silently
    drops the rest of the file).
    """
    next_line = 1
    carry = np.empty(0, dtype=np.uint8)
    newlines = np.empty(0, dtype=bool)  # reused: a fresh mask per batch costs as many page faults as the data
    try:
        reader = open_reader(path, codec)
    except OSError as error:
        raise InputError(f"cannot open: {error.strerror or error}", path=path) from error
    with reader:
        while True:
            buffer = np.empty(len(carry) + batch_bytes, dtype=np.uint8)  # not zeroed: pages past the data stay untouched
            buffer[: len(carry)] = carry
            filled = len(carry) + _read_into(reader, memoryview(buffer)[len(carry) :], path)
            if len(newlines) < filled:
                newlines = np.empty(filled, dtype=bool)
            ends = np.flatnonzero(np.equal(buffer[:filled], 10, out=newlines[:filled])) + 1  # one past each newline
            at_end = filled < len(buffer)
            if at_end and filled > (ends[-1] if len(ends) else 0):
                ends = np.append(ends, filled)  # a last line without a newline
            if len(ends):
                batch = _to_batch(path, next_line, buffer, ends)
                next_line += len(batch)
                yield batch
            if at_end:
                return
            carry = buffer[ends[-1] if len(ends) else 0 : filled].copy()


def head_lines(path: str, max_bytes: int) -> LineBatch | None:
    """The first batch of whole lines within ``max_bytes`` of ``path`` (at least one line); None for an empty file.

    For samples (keys, fields) that must not cost a read of the whole file; the file is closed at once.
    """
    batches = iter_line_batches(path, batch_bytes=max_bytes)
    try:
        return next(batches, None)
    finally:
        batches.close()


def read_bytes(path: str) -> bytes:
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
    except (OSError, EOFError, isal_zlib.IsalError, zstandard.ZstdError) as error:  # ISA-L's corrupt-data error is no OSError
        raise InputError(
            f"cannot decompress ({error})",
            path=path,
            hint="check that the file is complete and that its extension matches its compression",
        ) from error


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
        raise InputError(
            "invalid UTF-8",
            path=path,
            line=first_line + bad,
            hint="re-encode the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`) or drop the line",
        ) from None
    return LineBatch(path=path, first_line=first_line, lines=lines)


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


def json_string_literals(texts: pa.Array) -> list:
    """Each text as the JSON string literal msgspec writes for it (quoted, escaped), as ``msgspec.Raw``
    values that an encoder copies into a document verbatim.

    For texts already in Arrow, such as the span kernel's output: escaping them in one Polars pass
    and copying the bytes out takes half as long as turning them into Python strings for the encoder
    (most web text is not ASCII, and CPython converts such strings to UTF-8 and back code point by code point).
    """
    import msgspec
    import polars as pl

    encoded = pl.DataFrame({"t": pl.Series(texts.cast(pa.large_string()))}).select(pl.struct("t").struct.json_encode())
    literals = encoded.to_series().str.slice(len('{"t":')).str.head(-1)  # each row is {"t":<literal>}
    return list(map(msgspec.Raw, literals.cast(pl.Binary).to_list()))


def count_lines(path: str) -> int:
    return sum(len(batch) for batch in iter_line_batches(path))


class AtomicWriter(io.RawIOBase):
    """Write (compressed by extension) to ``<path>.tmp`` and rename to ``path`` on a clean close.

    Used as a context manager: an exception inside the block removes the temp file, so
    nothing half-written is ever left under the final name.
    """

    def __init__(self, path: str, codec: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.tmp_path = path + ".tmp"
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        codec = codec_of(path) if codec is None else codec
        self._raw = open(self.tmp_path, "wb")
        if codec == "gz":
            level = int(os.environ.get("DOLMA_SQL_GZIP_LEVEL", GZIP_LEVEL))
            # mtime 0: the same content gives the same bytes (reproducible outputs)
            self._sink = igzip.IGzipFile(fileobj=self._raw, mode="wb", compresslevel=level, mtime=0)
        elif codec == "zst":
            self._sink = zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(self._raw, closefd=False)
        else:
            self._sink = self._raw
        self.bytes_written = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._sink.write(data)
        self.bytes_written += len(data)
        return len(data)

    def commit(self) -> None:
        if self._sink is not self._raw:
            self._sink.close()
        self._raw.close()
        os.replace(self.tmp_path, self.path)

    def abort(self) -> None:
        try:
            if self._sink is not self._raw:
                self._sink.close()
        finally:
            self._raw.close()
            if os.path.exists(self.tmp_path):
                os.remove(self.tmp_path)

    def __enter__(self) -> "AtomicWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


@dataclass(frozen=True)
class DocumentBatch:
    """Parsed documents of one line batch: ``table`` has one column per requested field.

    String fields (``id``, ``text``, ``source``, …) are strings (a non-string ``id`` is rendered
    as its JSON text, e.g. ``1``); ``metadata`` and other object fields are JSON text. A field
    missing from a document is null. ``table.num_rows == len(lines)``: row ``i`` is line
    ``first_line + i``.
    """

    path: str
    first_line: int
    lines: pa.LargeStringArray
    table: pa.Table

    def __len__(self) -> int:
        return self.table.num_rows


JSON_FIELDS = frozenset({"metadata", "attributes"})
"""Top-level fields returned as JSON text rather than as strings."""


def iter_document_batches(
    path: str,
    *,
    fields: tuple[str, ...] = ("id", "text"),
    required: tuple[str, ...] = ("text",),
    codec: str | None = None,
    batch_bytes: int = BATCH_BYTES,
) -> Iterator[DocumentBatch]:
    """Parse ``path``'s documents batch by batch with DuckDB's JSON reader (vectorized, multi-threaded).

    A malformed line, a line that is not an object, or a document whose required field is
    missing or not a string is an :class:`InputError` naming the file and line.
    """
    connection = None  # DuckDB is imported and connected only when the fast path declines a batch
    # a dotted name is a nested path, as dolma's field names (``metadata.text``)
    paths = ", ".join("'$" + "".join('."' + part.replace('"', '\\"') + '"' for part in name.split(".")) + "'" for name in fields)
    projections = ", ".join(
        f"CASE WHEN json_type(v[{i + 1}]) = 'VARCHAR' THEN v[{i + 1}]->>'$' ELSE {'v[%d]::VARCHAR' % (i + 1)} END AS \"{name}\""
        if name not in JSON_FIELDS
        else f"v[{i + 1}]::VARCHAR AS \"{name}\""
        for i, name in enumerate(fields)
    )
    checks = ", ".join(f"coalesce(json_type(v[{fields.index(name) + 1}]) = 'VARCHAR', false) AS \"ok_{name}\"" for name in required)
    query = f"SELECT {projections}{', ' + checks if checks else ''} FROM (SELECT json_extract(line, [{paths}]) AS v FROM lines)"
    string_schema = _string_fields_schema(fields)
    for batch in iter_line_batches(path, codec=codec, batch_bytes=batch_bytes):
        fast = _decode_string_fields(string_schema, batch.lines, required) if string_schema is not None else None
        if fast is not None:
            yield DocumentBatch(path=path, first_line=batch.first_line, lines=batch.lines, table=fast)
            continue
        import duckdb

        if connection is None:
            connection = duckdb.connect()
        lines_table = pa.table({"line": batch.lines})
        connection.register("lines", lines_table)
        try:
            result = connection.sql(query).to_arrow_table()
        except duckdb.Error:
            _raise_first_malformed(batch)
            raise
        finally:
            connection.unregister("lines")
        for name in required:
            ok = result.column(f"ok_{name}")
            if not pa.compute.all(ok).as_py():
                bad = pa.compute.index(ok, False).as_py()
                raise InputError(
                    f"document has no string field {name!r}",
                    path=path,
                    line=batch.first_line + bad,
                    hint=f"every document needs a string {name!r}; fix or remove that line",
                )
        yield DocumentBatch(path=path, first_line=batch.first_line, lines=batch.lines, table=result.select(list(fields)))


def _string_fields_schema(fields: tuple[str, ...]) -> pa.Schema | None:
    """The all-string schema of the fast path when every requested field is a plain string field (``None`` otherwise)."""
    if any(name in JSON_FIELDS or not name.isidentifier() for name in fields) or len(set(fields)) != len(fields):
        return None
    return pa.schema([(name, pa.string()) for name in fields])


def _decode_string_fields(schema: pa.Schema, lines: pa.LargeStringArray, required: tuple[str, ...]) -> pa.Table | None:
    """Fast path (about 2x msgspec into Python strings, 4x DuckDB's JSON reader, on one core): Arrow's
    JSON reader on the batch's bytes, in place, with an explicit all-string schema.

    That reader is stricter than needed (a non-string value or a repeated key fails) and skips blank
    lines, so any failure, a null required field, a line not starting with ``{`` or a row count other
    than the line count returns ``None`` and the caller takes the DuckDB path, which produces the
    exact values or the line-accurate error.
    """
    import pyarrow.json

    if not len(lines):
        return None
    offsets = line_offsets(lines)
    data = lines.buffers()[2][offsets[0] : offsets[-1]]
    if not np.all(np.frombuffer(data, dtype=np.uint8)[offsets[:-1] - offsets[0]] == ord("{")):
        return None
    try:
        table = pyarrow.json.read_json(
            pa.BufferReader(data),
            read_options=pyarrow.json.ReadOptions(use_threads=False, block_size=len(data) + 1),
            parse_options=pyarrow.json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"),
        )
    except pa.ArrowInvalid:
        return None
    if table.num_rows != len(lines) or any(table.column(name).null_count for name in required):
        return None
    return table.select(schema.names).combine_chunks()


def decode_object(text: str, *, path: str, line: int, hint: str = "each line must be one JSON object; blank lines are not allowed") -> dict:
    """Decode one line that must be a JSON object; anything else is an InputError naming file and line."""
    import msgspec

    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as error:
        raise InputError(f"malformed JSON ({error})", path=path, line=line, hint=hint) from None
    if not isinstance(value, dict):
        raise InputError(f"expected a JSON object, got {type(value).__name__}", path=path, line=line, hint=hint)
    return value


def _raise_first_malformed(batch: LineBatch) -> None:
    """Find the first line that is not a JSON object and raise an error naming it (only on the error path)."""
    for index, line in enumerate(batch.lines.to_pylist()):
        decode_object(line, path=batch.path, line=batch.first_line + index)
