"""One storage layer for every path the program touches.

Every path is a URL handled by fsspec (a plain path is a local file), so ``s3://``, ``gs://``,
``memory://`` or any fsspec filesystem works wherever a local path does. :mod:`.urls` finds,
lists and opens files; :mod:`.remote` is their fsspec side (a store's failures as errors naming the
URL, inputs staged in ``work_dir.input``, uploads); :mod:`.codecs` picks the compression by
extension; :mod:`.commit` is the one way an output reaches its final name.
"""

from dolma_sql.storage.codecs import codec_of, compressed_writer, decompressed_reader
from dolma_sql.storage.commit import OutputFile, check_writable, check_writable_file, copy_to, output, publish, staged, write_bytes
from dolma_sql.storage.remote import StorageReadError, StorageWriteError
from dolma_sql.storage.urls import (
    exists,
    expand_globs,
    is_local,
    join,
    listdir,
    makedirs,
    name,
    open_input,
    open_inputs_if_exist,
    parent,
    read_bytes,
    relative,
    remove,
    size,
)

__all__ = [
    "OutputFile",
    "StorageReadError",
    "StorageWriteError",
    "check_writable",
    "check_writable_file",
    "codec_of",
    "copy_to",
    "compressed_writer",
    "decompressed_reader",
    "exists",
    "expand_globs",
    "is_local",
    "join",
    "listdir",
    "makedirs",
    "name",
    "open_input",
    "open_inputs_if_exist",
    "output",
    "parent",
    "publish",
    "read_bytes",
    "relative",
    "remove",
    "size",
    "staged",
    "write_bytes",
]
