"""The one commit protocol: an output appears under its final name whole, or not at all.

A local output is written to a temp name beside it, unique to the writer (so two runs never
share one), and renamed when complete. An object store has no rename: the output is written to
a local temp file (in the staging folder, dolma's ``work_dir.output``, when one is given) and
uploaded to its final key only when complete, so a failed write leaves no partial object there.
A failure of either removes the temp file. A stream to S3 with no staging folder is instead sent
as a multipart upload while it is written (:mod:`.multipart`), completed only on commit. Every
writer of an output goes through :func:`output` (a stream, compressed by extension), :func:`staged`
(a local path, for libraries that write files themselves: Parquet, NumPy memmaps) or
:func:`write_bytes`.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterator

from dolma_sql.errors import OutputError
from dolma_sql.storage import multipart, remote, urls
from dolma_sql.storage.codecs import codec_of, compressed_writer

TEMP_SUFFIX = ".tmp"


def temp_name(path: str) -> str:
    """A temp name beside ``path`` that no other writer (process or run) uses."""
    return f"{path}.{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}"


def remove_temps(url: str) -> None:
    """Remove the temp files that writers of ``url`` left beside it when they were killed before committing.

    For a unit about to write ``url`` again (no other writer of ``url`` may be running). Only local
    outputs have temp files beside them: remote ones are staged in a local folder.
    """
    local = urls.local_path(url)
    if local is None:
        return
    folder, name = os.path.split(local)
    left_behind = re.compile(re.escape(name) + r"\.\d+-[0-9a-f]{8}" + re.escape(TEMP_SUFFIX))
    for entry in urls.listdir(folder or "."):
        if left_behind.fullmatch(entry):
            urls.remove(os.path.join(folder, entry))


class OutputFile(io.RawIOBase):
    """A writable stream to ``url`` (compressed by extension, or by ``codec``), committed on a clean close.

    Used as a context manager: leaving the block normally commits, an exception aborts. Errors of
    the disk (full, read-only, no permission) are an :class:`OutputError` naming the output.
    """

    def __init__(self, url: str, codec: str | None = None, *, staging: str | None = None, rename: bool = True) -> None:
        super().__init__()
        self.url = url
        self._staged = self.temp_path = None
        if staging is None and urls.local_path(url) is None and multipart.streams_to(url):
            self._raw = multipart.StreamedUpload(url)
        else:
            self._staged = staged(url, staging=staging, rename=rename)
            with _disk_errors(url):
                self.temp_path = self._staged.__enter__()
                self._raw = open(self.temp_path, "wb")
        self._sink = compressed_writer(self._raw, codec_of(url) if codec is None else codec)
        self.bytes_written = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        try:
            with _disk_errors(self.url, temp=self.temp_path):
                self._sink.write(data)
        except BaseException:
            self.abort()
            raise
        self.bytes_written += len(data)
        return len(data)

    def commit(self) -> None:
        if self._staged is None:
            try:
                self._sink.close()
            except BaseException:
                self._raw.discard()
                raise
            self._raw.commit()
            return
        try:
            with _disk_errors(self.url, temp=self.temp_path):
                self._sink.close()
                self._raw.close()
        except BaseException as error:
            self._staged.__exit__(type(error), error, error.__traceback__)
            raise
        self._staged.__exit__(None, None, None)

    def abort(self) -> None:
        if self._staged is None:
            if not self._raw.closed:
                self._raw.discard()
            return
        if self._raw.closed and not os.path.exists(self.temp_path):
            return
        with contextlib.suppress(Exception):
            self._sink.close()
        with contextlib.suppress(OSError):  # flushing what is buffered fails again on a full disk
            self._raw.close()
        error = RuntimeError("aborted")
        with contextlib.suppress(Exception):
            self._staged.__exit__(RuntimeError, error, None)

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


def output(url: str, codec: str | None = None, *, staging: str | None = None, rename: bool = True) -> OutputFile:
    """Open ``url`` for writing under the commit protocol (see :class:`OutputFile` and :func:`staged`)."""
    return OutputFile(url, codec, staging=staging, rename=rename)


@contextlib.contextmanager
def staged(url: str, *, staging: str | None = None, rename: bool = True) -> Iterator[str]:
    """A local temp path to write ``url``'s content to; committed to ``url`` when the block ends normally.

    For libraries that write a file themselves (Parquet, NumPy). On an exception the temp file is
    removed and nothing appears at ``url``. ``rename=False`` is for a local folder that cannot
    rename files (dolma's ``is_s3_volume``: a mountpoint-s3 volume, which shows a file once it is
    written whole): the file is written in the staging folder and copied to ``url`` in one pass.
    """
    local = urls.local_path(url)
    if local is not None and rename:
        with _disk_errors(url):
            urls.makedirs(os.path.dirname(local))
        temp = temp_name(local)
    else:
        folder = staging or tempfile.gettempdir()
        with _disk_errors(url):
            os.makedirs(folder, exist_ok=True)
        temp = os.path.join(folder, f"{urls.name(url)}.{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        with _disk_errors(url, only=_FULL, temp=temp):  # a library writing the temp file (NumPy, Parquet) on a full disk
            yield temp
        publish(temp, url, rename=rename)
    finally:
        _remove_temp(temp)


def _remove_temp(temp: str) -> None:
    try:
        os.remove(temp)
    except FileNotFoundError:
        pass
    except OSError:  # a read-only filesystem refuses even to remove a file that is not there
        if os.path.lexists(temp):
            raise


def publish(finished: str, url: str, *, rename: bool = True) -> None:
    """Put a finished local file at ``url`` in one step: renamed into place (it must be on the same
    filesystem as a local ``url``), copied (``rename=False``) or uploaded (a remote ``url``)."""
    local = urls.local_path(url)
    with _disk_errors(url):
        if local is None:
            remote.upload(finished, url)
        elif rename:
            os.replace(finished, local)
        else:
            urls.makedirs(os.path.dirname(local))
            shutil.copyfile(finished, local)


def write_bytes(url: str, data: bytes, *, staging: str | None = None, rename: bool = True) -> None:
    """Write a small file whole (a report, a manifest, a ledger record) under the commit protocol."""
    with output(url, codec="", staging=staging, rename=rename) as handle:
        handle.write(data)


def copy_to(local_source: str, url: str, *, staging: str | None = None) -> None:
    """Commit a copy of a local file to ``url``."""
    with staged(url, staging=staging) as temp:
        shutil.copyfile(local_source, temp)


def create_new(url: str, data: bytes) -> None:
    """Put ``data`` at ``url`` only if no file is there (``FileExistsError`` otherwise): a claim, such as a run lock.

    Locally a finished temp file is hard-linked to ``url``, so the file never shows half-written (where
    the filesystem has no hard links it is created exclusively, then written). On an object store it is
    a conditional put (S3's ``If-None-Match``, fsspec's ``mode="create"``); an fsspec filesystem without
    one checks, then writes, which two writers at the same moment may both pass.
    """
    local = urls.local_path(url)
    if local is None:
        fs, path = urls.filesystem(url)
        try:
            with _disk_errors(url):
                fs.pipe_file(path, data, mode="create")
        except OSError as error:  # a store that names a failed condition otherwise (an I/O error)
            if not isinstance(error, FileExistsError) and fs.exists(path):
                raise FileExistsError(errno.EEXIST, "exists", url) from None
            raise
        return
    with _disk_errors(url):
        urls.makedirs(os.path.dirname(local))
        temp = temp_name(local)
        try:
            with open(temp, "wb") as handle:
                handle.write(data)
            try:
                os.link(temp, local)
            except FileExistsError:
                raise
            except OSError:  # no hard links on this filesystem
                with open(local, "xb") as handle:
                    handle.write(data)
        finally:
            _remove_temp(temp)


def remove_claim(url: str, data: bytes) -> bool:
    """Remove the file ``url`` if it still holds ``data`` (a claim of :func:`create_new`); returns whether it did.

    Locally the file is first moved aside, in one step, so that a claim another process made meanwhile
    is put back rather than removed. On an object store (or a volume that cannot rename) the content is
    checked, then the file removed.
    """
    local = urls.local_path(url)
    if local is not None:
        aside = temp_name(local)
        try:
            os.rename(local, aside)
        except FileNotFoundError:
            return False
        except OSError:
            aside = None
        if aside is not None:
            try:
                with open(aside, "rb") as handle:
                    held = handle.read()
            except FileNotFoundError:  # removed meanwhile by the run that took the lock (RunLock.acquire)
                return False
            if held != data:
                with contextlib.suppress(FileExistsError):
                    os.link(aside, local)
            os.remove(aside)
            return held == data
    try:
        if urls.read_bytes(url) != data:
            return False
    except FileNotFoundError:
        return False
    urls.remove(url)
    return True


_DISK_HINTS = {
    errno.ENOSPC: "free some space (or write elsewhere) and rerun: finished outputs are kept and skipped",
    errno.EDQUOT: "free some space within the quota (or write elsewhere) and rerun",
    errno.EACCES: "choose a destination you can write to, or fix the folder's permissions",
    errno.EPERM: "choose a destination you can write to, or fix the folder's permissions",
    errno.EROFS: "the filesystem is read-only: choose another destination",
}


_FULL = (errno.ENOSPC, errno.EDQUOT)

NEARLY_FULL_BYTES = 1 << 20
"""Free space under which a failed write that names no cause (NumPy's short write) is taken for a full disk."""


@contextlib.contextmanager
def _disk_errors(url: str, only: tuple[int, ...] = tuple(_DISK_HINTS), *, temp: str | None = None) -> Iterator[None]:
    """Turn the disk's refusals (those of ``only``) into an :class:`OutputError` that names the output (and free
    space when full); ``temp`` is the local file being written for it, if any."""
    try:
        yield
    except Exception as error:
        code = _cause(error, temp)
        if code not in only:
            raise
        message = f"cannot write: {os.strerror(code)}"
        if code in _FULL:
            folder = os.path.dirname(os.path.abspath(temp or urls.local_path(url) or os.path.join(tempfile.gettempdir(), "-")))
            free = _free_bytes(folder)
            message += f" ({free:,} bytes free in {folder})" if free >= 0 else ""
        raise OutputError(message, path=url, hint=_DISK_HINTS[code]) from None


def _cause(error: Exception, temp: str | None) -> int | None:
    """The errno of a failed write: an ``OSError``'s own, or a full disk when a library writing ``temp``
    failed saying so in words (DuckDB, Arrow) or with no errno on a disk that is full (NumPy's short write)."""
    if isinstance(error, OSError) and error.errno is not None:
        return error.errno
    if temp is None or isinstance(error, OutputError):
        return None
    if os.strerror(errno.ENOSPC) in str(error):
        return errno.ENOSPC
    if isinstance(error, OSError) and 0 <= _free_bytes(os.path.dirname(os.path.abspath(temp))) < NEARLY_FULL_BYTES:
        return errno.ENOSPC
    return None


def _free_bytes(folder: str) -> int:
    """Free bytes on the filesystem of ``folder`` (-1 if unknown)."""
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return -1


def check_writable(folder: str, *, where: str) -> None:
    """Fail before any work when outputs cannot be written under ``folder`` (``where``: the config path naming it)."""
    from dolma_sql.errors import ConfigError

    if not remote.bucket_exists(folder):  # some stores make a bucket on the first write into it
        raise ConfigError(f"{folder!r} is not writable (no such bucket {remote.bucket_of(folder)!r})", path=where, hint="create the bucket first, or fix its name")
    probe = urls.join(folder, f".dolma-sql-write-test-{os.getpid()}-{secrets.token_hex(4)}")
    made = missing_folders(folder)
    try:
        write_bytes(probe, b"")
        urls.remove(probe)
    except (OutputError, OSError) as error:
        reason = error.message if isinstance(error, OutputError) else (error.strerror or str(error))
        raise ConfigError(f"{folder!r} is not writable ({reason})", path=where, hint="point it at a folder you can write to") from None
    finally:
        remove_empty_folders(made)  # the probe leaves no folder behind: a run that stops before its outputs leaves no trace


def check_writable_file(url: str, *, where: str) -> None:
    """Fail before any work when the output file ``url`` cannot be written: a folder is there, or its own folder is
    not writable (``where``: the option naming it)."""
    from dolma_sql.errors import ConfigError

    if urls.exists(url) and not urls.isfile(url):
        raise ConfigError(f"{url!r} is a folder", path=where, hint="name the file to write")
    check_writable(urls.parent(url), where=where)


def missing_folders(folder: str) -> list[str]:
    """The local folders, deepest first, that writing into ``folder`` would create (none for a URL)."""
    path = urls.local_path(folder) if urls.is_local(folder) else None
    missing: list[str] = []
    while path and not os.path.exists(path):
        missing.append(path)
        path = os.path.dirname(os.path.normpath(path))
    return missing


def remove_empty_folders(folders: list[str] | tuple[str, ...]) -> None:
    """Remove ``folders`` (local, deepest first, as :func:`missing_folders` lists them) while they are empty."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:  # not empty: nor are the folders above it
            return
