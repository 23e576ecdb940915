"""The remote side of storage: fsspec filesystems, their failures as errors that name the URL, and readers.

Credentials and endpoints come the standard way of each filesystem (for ``s3://``: botocore's
environment variables, ``~/.aws/credentials`` and ``~/.aws/config``, ``AWS_ENDPOINT_URL``); nothing
here configures them. Object stores have no folders, so nothing here creates one (creating the
"folder" of a bucket creates the bucket: a typo in a bucket name must be an error, not a new bucket).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from typing import Any, BinaryIO

from dolma_sql.errors import ConfigError, DolmaSqlError, InputError, OutputError

READ_BLOCK_BYTES = 8 << 20
"""Read-ahead of a remote file: one request per batch of lines rather than fsspec's default 5 MiB."""

READ_AHEAD_BYTES = 4 << 20
"""The chunk of a file read front to back (:class:`ReadAhead`): two of them are held, one being read
and the next one on its way, as much memory as one block of a file read at random."""

OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss"})
"""Protocols whose first path component is a bucket (or container) and that have no folders."""

STORE_LIBRARIES = frozenset({"botocore", "aiobotocore", "aiohttp", "urllib3", "requests", "s3fs", "gcsfs", "google", "adlfs", "azure", "fsspec"})
"""Top-level packages whose exceptions are failures of a store or of the network, not bugs of dolma-sql."""

UNREACHABLE_HINT = "check that the store is reachable (for s3://: AWS_ENDPOINT_URL, the network) and rerun: finished units are kept"

DENIED_HINT = "check the credentials (for s3://: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ~/.aws/credentials) and their access to this path"


class StoreFailure:
    """Marks an error of the store or of the way to it (a refusal, an outage), not of the data: where it happened
    matters, since each Ray worker reaches the store with its own node's settings."""


class StorageReadError(InputError, StoreFailure):
    """An object store failed or could not be reached while reading (a rerun may succeed)."""


class StorageWriteError(OutputError, StoreFailure):
    """An object store failed or could not be reached while writing (nothing appears at the output; a rerun may succeed)."""


class ReadDenied(InputError, StoreFailure):
    """The store refused a read (credentials, permissions)."""


class WriteDenied(OutputError, StoreFailure):
    """The store refused a write (credentials, permissions)."""


def protocol(url: str) -> str:
    return url.split("://", 1)[0]


def is_object_store(url: str) -> bool:
    return "://" in url and protocol(url).lower() in OBJECT_STORES


@lru_cache(maxsize=None)
def filesystem_of(protocol: str) -> Any:
    import fsspec

    try:
        return fsspec.filesystem(protocol)
    except (ImportError, ValueError) as error:
        raise ConfigError(
            f"no filesystem for {protocol}:// URLs ({error})",
            hint=f"install the fsspec implementation of {protocol}:// (for s3://: pip install s3fs)",
        ) from None


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of a remote URL and the path within it."""
    fs = filesystem_of(protocol(url))
    return fs, fs._strip_protocol(url)


def bucket_of(url: str) -> str:
    """The bucket (container) of an object store URL."""
    return url.split("://", 1)[1].lstrip("/").split("/", 1)[0]


def bucket_exists(url: str) -> bool:
    """Whether the bucket of an object store URL exists (True for any other URL)."""
    if not is_object_store(url):
        return True
    fs, _ = filesystem(url)
    with errors(url, "read"):
        return bool(fs.exists(bucket_of(url)))


@contextlib.contextmanager
def errors(url: str, doing: str) -> Iterator[None]:
    """Failures of a remote operation on ``url`` (``doing``: read or write) as errors that name it.

    A missing object or bucket stays a ``FileNotFoundError`` (callers handle it as a missing local file),
    with a message that says which is missing; a refusal is an :class:`~dolma_sql.errors.InputError` or
    :class:`~dolma_sql.errors.OutputError`; a store that fails or cannot be reached is a
    :class:`StorageReadError` or :class:`StorageWriteError`.
    """
    try:
        yield
    except DolmaSqlError:
        raise
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, _not_found(url), url) from None
    except PermissionError as error:
        refusal = WriteDenied if doing == "write" else ReadDenied
        raise refusal(f"cannot {doing}: access denied ({_reason(error)})", path=url, hint=DENIED_HINT) from None
    except Exception as error:
        if _no_credentials(error):  # not a failure of the store: no retry helps
            refusal = WriteDenied if doing == "write" else ReadDenied
            raise refusal(f"cannot {doing}: {_reason(error)}", path=url, hint=DENIED_HINT) from None
        if not isinstance(error, OSError) and type(error).__module__.split(".")[0] not in STORE_LIBRARIES:
            raise  # a bug, not the store
        failure = StorageWriteError if doing == "write" else StorageReadError
        raise failure(f"cannot {doing}: {_reason(error)}", path=url, hint=UNREACHABLE_HINT) from None


def _no_credentials(error: BaseException) -> bool:
    """botocore's ``NoCredentialsError`` and ``PartialCredentialsError`` (told by name: botocore is optional)."""
    return any(cls.__name__ in ("NoCredentialsError", "PartialCredentialsError") for cls in type(error).__mro__)


def _reason(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) and error.strerror else str(error)) or type(error).__name__


def _not_found(url: str) -> str:
    """What is missing: the object, or its whole bucket (asked only on this error path)."""
    if is_object_store(url):
        with contextlib.suppress(Exception):
            fs, _ = filesystem(url)
            if not fs.exists(bucket_of(url)):
                return f"no such bucket {bucket_of(url)!r}"
    return "no such object"


class RemoteReader(io.RawIOBase):
    """A remote file as a raw stream whose failures (the store gone mid-read) are errors naming its URL."""

    def __init__(self, handle: BinaryIO, url: str) -> None:
        super().__init__()
        self._handle = handle
        self.url = url

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        with errors(self.url, "read"):
            return self._handle.readinto(buffer)

    def read(self, size: int = -1) -> bytes:
        with errors(self.url, "read"):
            return self._handle.read(size)

    def readall(self) -> bytes:
        return self.read()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        with errors(self.url, "read"):
            return self._handle.seek(offset, whence)

    def tell(self) -> int:
        return self._handle.tell()

    def close(self) -> None:
        if not self.closed:
            self._handle.close()
        super().close()


class ReadAhead(io.RawIOBase):
    """A remote file read front to back in chunks, the next one fetched by a background thread while
    the caller works on the current one: the reader never waits on the store if the store keeps up.
    Holds two chunks at most.

    No size is asked for (a request per file saved): a chunk shorter than asked for is the last one. The
    first chunk is asked for at once, so that several files opened together wait for one round trip
    (:meth:`wait_found`), not one each.
    """

    def __init__(self, fs: Any, path: str, url: str) -> None:
        super().__init__()
        self.url = url
        self._fs, self._path = fs, path
        self._fetcher = ThreadPoolExecutor(1, thread_name_prefix="dolma-sql-read-ahead")
        self._next: Future | None = self._fetcher.submit(self._fetch, 0)
        self._chunk = memoryview(b"")
        self._at = 0  # in the chunk
        self._position = 0  # in the file

    def _fetch(self, start: int) -> bytes:
        try:
            return self._fs.cat_file(self._path, start=start, end=start + READ_AHEAD_BYTES)
        except FileNotFoundError:
            raise
        except Exception:
            # object stores refuse a range that starts at the end of the file (HTTP 416, an error of each
            # store's own kind): the size is asked only then, of a file whose size is a multiple of the chunk
            if self._fs.size(self._path) == start:
                return b""
            raise

    def wait_found(self) -> None:
        """Wait for the first chunk; a ``FileNotFoundError`` if there is no such file."""
        with errors(self.url, "read"):
            self._next.result()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._at == len(self._chunk):
            if self._next is None:
                return 0
            with errors(self.url, "read"):
                self._chunk, self._at = memoryview(self._next.result()), 0
            whole = len(self._chunk) == READ_AHEAD_BYTES
            self._next = self._fetcher.submit(self._fetch, self._position + len(self._chunk)) if whole else None
            if not self._chunk:
                return 0
        count = min(len(buffer), len(self._chunk) - self._at)
        memoryview(buffer).cast("B")[:count] = self._chunk[self._at : self._at + count]
        self._at += count
        self._position += count
        return count

    def tell(self) -> int:
        return self._position

    def close(self) -> None:
        if self._next is not None:
            self._next.cancel()
        self._fetcher.shutdown(wait=False)
        self._chunk = memoryview(b"")
        super().close()


def open_remote(url: str, *, staging: str | None = None, sequential: bool = False, wait: bool = True) -> BinaryIO:
    """A reader of the raw bytes of a remote ``url``: streamed (``sequential``: read front to back, each
    next chunk fetched ahead; ``wait=False``: a :class:`ReadAhead` whose first chunk is still on its way,
    so that a missing file is found by its :meth:`~ReadAhead.wait_found` or first read), or with
    ``staging`` (dolma's ``work_dir.input``) downloaded whole into that local folder first and read from there.

    The staged copy is unlinked as soon as it is open, so it is gone once the reader is closed, even
    when the process is killed while reading.
    """
    fs, path = filesystem(url)
    if staging is None:
        if sequential:
            reader = ReadAhead(fs, path, url)
            if wait:
                try:
                    reader.wait_found()
                except BaseException:
                    reader.close()
                    raise
            return reader
        with errors(url, "read"):
            return RemoteReader(fs.open(path, "rb", block_size=READ_BLOCK_BYTES), url)
    os.makedirs(staging, exist_ok=True)
    local = os.path.join(staging, f"{os.path.basename(path)}.{os.getpid()}-{secrets.token_hex(4)}.download")
    try:
        with errors(url, "read"):
            fs.get_file(path, local)
        return open(local, "rb")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.remove(local)


def upload(local: str, url: str) -> None:
    """Put a finished local file at ``url``; object stores show an object only once its upload completes
    (a multipart upload that fails is aborted), so a failed upload leaves nothing at ``url``."""
    fs, path = filesystem(url)
    with errors(url, "write"):
        if "/" in path and not is_object_store(url):  # filesystems with folders get them
            with contextlib.suppress(OSError):
                fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        fs.put_file(local, path)
