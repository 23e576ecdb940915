"""Compression chosen by extension: ``.gz`` (gzip, multi-member, by ISA-L), ``.zst`` (zstd), else plain.

The one table of codec names (``CODEC_NAMES``: what configs may say) and extensions, and the
streams that decompress and compress, for every reader and writer.
"""

from __future__ import annotations

import io
import os
import posixpath
from typing import BinaryIO

import zstandard
from isal import igzip, isal_zlib

EXTENSIONS = {"gz": ".gz", "zst": ".zst", "": ""}
"""The extension each codec's files end with."""

CODEC_NAMES = {"gz": "gz", "gzip": "gz", "zst": "zst", "zstd": "zst", "": "", "none": ""}
"""The codec names a config may use (dolma's ``compression.input``/``output``), to codecs."""

_BY_SUFFIX = {suffix: codec for codec, suffix in EXTENSIONS.items() if suffix}

GZIP_LEVEL = 2
"""ISA-L's default level: as fast as levels 0 and 1 on web text, and smaller output than level 1."""

ZSTD_LEVEL = 3

DECODER_ERRORS = (OSError, EOFError, isal_zlib.IsalError, zstandard.ZstdError)
"""What the decoders raise for truncated or corrupt data (ISA-L's corrupt-data error is no OSError)."""


def codec_of(path: str) -> str:
    """The codec of a file from its last extension (``gz``, ``zst``, or ``""`` for plain)."""
    return _BY_SUFFIX.get(posixpath.splitext(path)[1], "")


def with_codec(path: str, codec: str) -> str:
    """``path`` with its compression extension, if it has one, replaced by ``codec``'s."""
    stem, suffix = posixpath.splitext(path)
    return (stem if suffix in _BY_SUFFIX else path) + EXTENSIONS[codec]


def codec_named(name: str | None, *, where: str) -> str | None:
    """The codec a config's compression name stands for (``None``: by extension)."""
    from dolma_sql.errors import ConfigError

    if name is None:
        return None
    try:
        return CODEC_NAMES[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown compression {name!r}", path=where, hint=f"use one of {', '.join(repr(n) for n in CODEC_NAMES)}") from None


def bytes_after_gzip(raw: BinaryIO, chunk: int = 1 << 20) -> int:
    """How many bytes of ``raw`` follow its last complete gzip member without starting another one (0 when none
    do, or when the data ends inside a member): a decoder reports both as an unexpected end. For the error path."""
    import zlib

    member, data = zlib.decompressobj(31), b""
    while data := data or raw.read(chunk):
        member.decompress(data)
        data = b""
        if not member.eof:
            continue
        rest = member.unused_data
        while len(rest) < 2 and (more := raw.read(chunk)):
            rest += more
        if rest and not b"\x1f\x8b".startswith(rest[:2]):
            return len(rest) + sum(len(block) for block in iter(lambda: raw.read(chunk), b""))
        member, data = zlib.decompressobj(31), rest
    return 0


def decompressed_reader(raw: BinaryIO, codec: str) -> BinaryIO:
    """A binary stream of the decompressed content of ``raw`` (which it closes when closed)."""
    if codec == "gz":
        return _GzipReader(raw)
    if codec == "zst":
        return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=True)
    return raw


def compressed_writer(raw: BinaryIO, codec: str) -> BinaryIO:
    """A stream that compresses into ``raw`` (closing it finishes the compressed stream, not ``raw``)."""
    if codec == "gz":
        level = int(os.environ.get("DOLMA_SQL_GZIP_LEVEL", GZIP_LEVEL))
        # mtime 0 and no file name (the writer's temp name would be recorded): the same content gives the same bytes
        return igzip.IGzipFile(filename="", fileobj=raw, mode="wb", compresslevel=level, mtime=0)
    if codec == "zst":
        return zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(raw, closefd=False)
    return _Unclosed(raw)


class _Unclosed(io.RawIOBase):
    """``raw`` itself, except that closing this leaves ``raw`` open (as the compressors do)."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__()
        self._raw = raw

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        return self._raw.write(data)


class _GzipReader(io.RawIOBase):
    """ISA-L's gzip decoder (multi-member) as a raw stream whose ``readinto`` decompresses straight
    into the caller's buffer.

    ``IGzipFile.readinto`` reads into a new bytes object and copies it over: for each batch, an
    allocation of fresh (kernel-zeroed) pages and a copy.
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
