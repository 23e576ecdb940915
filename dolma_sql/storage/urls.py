"""Finding, listing and opening files by URL.

A plain path (or ``file://`` URL) is a local file and is handled with the standard library,
which is what the commands' local speed is measured on; any other URL goes through the fsspec
filesystem of its protocol. Paths keep the form they were given in (relative stays relative),
and every function returns URLs that the others accept.
"""

from __future__ import annotations

import glob as _glob
import os
import posixpath
from collections.abc import Callable, Iterable, Sequence
from typing import BinaryIO

from dolma_sql.errors import ConfigError
from dolma_sql.storage import remote
from dolma_sql.storage.remote import filesystem


def is_local(url: str) -> bool:
    return "://" not in url or url.startswith("file://")


def _local(url: str) -> str:
    return url[len("file://") :] if url.startswith("file://") else url


def _protocol(url: str) -> str:
    return url.split("://", 1)[0]


def _remote_url(path: str, like: str) -> str:
    """A path that a filesystem listed, as a URL in the form the user wrote ``like`` in."""
    return f"{_protocol(like)}://{path.split('://', 1)[-1].lstrip('/')}"


def _remote_path(url: str) -> str:
    return filesystem(url)[1].lstrip("/")


def join(base: str, *parts: str) -> str:
    if is_local(base):
        return os.path.join(base, *parts)
    return posixpath.join(base, *parts)


def parent(url: str) -> str:
    if is_local(url):
        return os.path.dirname(url)
    protocol, path = url.split("://", 1)
    return f"{protocol}://{posixpath.dirname(path)}"


def name(url: str) -> str:
    return posixpath.basename(url.rstrip("/"))


def relative(url: str, base: str) -> str:
    """``url`` relative to the folder ``base`` (both local, or both on one remote filesystem)."""
    if is_local(url):
        return os.path.relpath(_local(url), _local(base))
    return posixpath.relpath(_remote_path(url), _remote_path(base))


def common_parent(urls: list[str]) -> str:
    """The deepest folder that holds every one of ``urls``."""
    if len(urls) == 1:
        return parent(urls[0])
    if is_local(urls[0]):
        return os.path.commonpath([os.path.dirname(_local(u)) for u in urls])
    return _remote_url(posixpath.commonpath([posixpath.dirname(_remote_path(u)) for u in urls]), urls[0])


def exists(url: str) -> bool:
    """Whether ``url`` exists now: a remote filesystem is asked again, not its cached listings (another
    process may have written the file since this one listed its folder)."""
    return _asked_again(url, os.path.exists, "exists")


def isfile(url: str) -> bool:
    """Whether ``url`` is a file now (asked again, as :func:`exists`)."""
    return _asked_again(url, os.path.isfile, "isfile")


def _asked_again(url: str, local_check: Callable[[str], bool], remote_check: str) -> bool:
    if is_local(url):
        return local_check(_local(url))
    fs, path = filesystem(url)
    with remote.errors(url, "read"):
        fs.invalidate_cache(path)
        return getattr(fs, remote_check)(path)


def size(url: str) -> int:
    """The size of a file in bytes (of a remote file listed by :func:`glob`, from that listing)."""
    if is_local(url):
        return os.path.getsize(_local(url))
    fs, path = filesystem(url)
    with remote.errors(url, "read"):
        return int(fs.size(path))


VERSION_FIELDS = ("ETag", "etag", "md5Hash", "generation", "version_id", "mtime", "LastModified", "last_modified", "updated", "created")
"""Fields of an fsspec ``info()`` that change when a file changes, best first: a content hash (S3's
ETag, GCS's md5) keeps a re-upload of equal bytes the same version, a time does not."""


def version(url: str) -> str:
    """A tag that changes when the file at ``url`` changes: its size and its modification time
    (locally) or content hash (on an object store), for reusing results derived from it."""
    if is_local(url):
        status = os.stat(_local(url))
        return f"{status.st_size}-{status.st_mtime_ns}"
    fs, path = filesystem(url)
    with remote.errors(url, "read"):
        info = fs.info(path)
    return _version_of(info) or fs.ukey(path)


def _version_of(info: dict) -> str | None:
    """The version an fsspec ``info()`` (or listing entry) gives: its size and best field of :data:`VERSION_FIELDS`."""
    stamp = next((info[field] for field in VERSION_FIELDS if info.get(field) is not None), None)
    return f"{info.get('size')}-{stamp}" if stamp is not None else None


MISSING = "missing"
"""The version of a file that does not exist (an input a unit may do without, such as an optional attribute file)."""


def versions(paths: Iterable[str]) -> dict[str, str]:
    """:func:`version` of each of ``paths`` (:data:`MISSING` for an absent one), with one listing per folder of an object
    store rather than a request per file."""
    found: dict[str, str] = {}
    remote_folders: dict[str, list[str]] = {}
    for path in dict.fromkeys(paths):
        if is_local(path):
            try:
                found[path] = version(path)
            except FileNotFoundError:
                found[path] = MISSING
        else:
            remote_folders.setdefault(parent(path), []).append(path)
    for folder, members in remote_folders.items():
        fs, folder_path = filesystem(folder)
        with remote.errors(folder, "read"):
            try:
                listing = {posixpath.basename(info["name"].rstrip("/")): info for info in fs.ls(folder_path, detail=True, refresh=True)}
            except FileNotFoundError:
                listing = {}
        for path in members:
            info = listing.get(posixpath.basename(path))
            found[path] = MISSING if info is None else _version_of(info) or version(path)
    return found


def listdir(url: str) -> list[str]:
    """The names in folder ``url`` (empty when it does not exist)."""
    if is_local(url):
        try:
            return sorted(os.listdir(_local(url)))
        except (FileNotFoundError, NotADirectoryError):
            return []
    fs, path = filesystem(url)
    try:
        with remote.errors(url, "read"):
            return sorted(posixpath.basename(entry.rstrip("/")) for entry in fs.ls(path, detail=False, refresh=True))
    except FileNotFoundError:
        return []


def makedirs(url: str) -> None:
    """Create folder ``url`` and its parents (object stores have no folders: nothing to do there, and
    no bucket is ever created)."""
    if is_local(url):
        if url:
            os.makedirs(_local(url), exist_ok=True)
        return
    if remote.is_object_store(url):
        return
    fs, path = filesystem(url)
    with remote.errors(url, "write"):
        fs.makedirs(path, exist_ok=True)


def remove(url: str) -> None:
    """Delete a file; a file that is already gone is no error."""
    try:
        if is_local(url):
            os.remove(_local(url))
        else:
            fs, path = filesystem(url)
            with remote.errors(url, "write"):
                fs.rm_file(path)
    except FileNotFoundError:
        pass


def remove_tree(url: str) -> None:
    """Delete a folder and everything under it; a folder that is already gone is no error."""
    if is_local(url):
        import shutil

        shutil.rmtree(_local(url), ignore_errors=True)
        return
    fs, path = filesystem(url)
    try:
        with remote.errors(url, "write"):
            fs.rm(path, recursive=True)
    except FileNotFoundError:
        pass


def open_input(url: str, *, staging: str | None = None, sequential: bool = False) -> BinaryIO:
    """A binary reader of the raw (still compressed) bytes of ``url``.

    A remote file is streamed (``sequential``: a reader that goes front to back has each next chunk
    fetched ahead), or with ``staging`` (dolma's ``work_dir.input``) first downloaded into that local
    folder, whence it is removed once read (see :func:`.remote.open_remote`). A local file is always
    read in place.
    """
    if is_local(url):
        return open(_local(url), "rb")
    return remote.open_remote(url, staging=staging, sequential=sequential)


def open_inputs_if_exist(urls: Sequence[str], *, staging: str | None = None, sequential: bool = False) -> list[BinaryIO | None]:
    """:func:`open_input` of each of ``urls``, ``None`` for each that does not exist (asked fresh, as
    :func:`exists` is). Remote files read front to back are all asked for before any answer is awaited:
    one round trip for them all, and none spent on asking first whether each exists."""
    readers: list[BinaryIO | None] = []
    try:
        for url in urls:
            readers.append(_open_unwaited(url, staging=staging, sequential=sequential))
        return [_found(reader) for reader in readers]
    except BaseException:
        for reader in readers:
            if reader is not None:
                reader.close()
        raise


def _open_unwaited(url: str, *, staging: str | None, sequential: bool) -> BinaryIO | None:
    try:
        if is_local(url):
            return open(_local(url), "rb")
        fs, path = filesystem(url)
        fs.invalidate_cache(path)
        return remote.open_remote(url, staging=staging, sequential=sequential, wait=False)
    except FileNotFoundError:
        return None


def _found(reader: BinaryIO | None) -> BinaryIO | None:
    if isinstance(reader, remote.ReadAhead):
        try:
            reader.wait_found()
        except FileNotFoundError:
            reader.close()
            return None
    return reader


def read_bytes(url: str) -> bytes:
    """The raw bytes of a small file (a config, a manifest, a ledger record)."""
    with open_input(url) as handle:
        return handle.read()


def local_path(url: str) -> str | None:
    """The local file behind ``url``, for libraries that need one (memmaps); ``None`` for a remote URL."""
    return _local(url) if is_local(url) else None


def glob(pattern: str) -> list[str]:
    """The files that ``pattern`` matches, sorted (``**`` is recursive)."""
    if is_local(pattern):
        local = os.path.expanduser(_local(pattern))
        matches = (m for m in _glob.glob(local, recursive=True) if os.path.isfile(m))
        prefix = "file://" if pattern.startswith("file://") else ""
        return sorted(prefix + m for m in matches)
    fs, path = filesystem(pattern)
    with remote.errors(pattern, "read"):
        if not _glob.has_magic(path):
            return [pattern] if isfile(pattern) else []
        matches = fs.glob(path, detail=True)  # one listing: the sizes of the files come with it
    return sorted(_remote_url(match, pattern) for match, info in matches.items() if info.get("type") == "file")


def expand_globs(patterns: list[str], *, config_path: str, warn: Callable[[str], None] | None = None) -> list[str]:
    """Expand document globs in order (each pattern sorted, ``**`` recursive), files only.

    A file matched by two patterns is read once (upstream mixes it twice). A pattern that
    matches nothing is a warning; all patterns matching nothing is an error.
    """
    if not patterns:
        raise ConfigError("no document paths given", path=config_path, hint="list at least one glob of document files")
    matches = {pattern: glob(pattern) for pattern in patterns}
    files = list(dict.fromkeys(match for found in matches.values() for match in found))
    if not files:
        missing = [remote.bucket_of(p) for p in patterns if remote.is_object_store(p) and not remote.bucket_exists(p)]
        raise ConfigError(
            f"no files match {patterns!r}" + (f" (no such bucket: {', '.join(dict.fromkeys(missing))})" if missing else ""),
            path=config_path,
            hint="check the glob, relative to the current directory " + os.getcwd()
            if any(is_local(p) for p in patterns)
            else "check the bucket and the path in it, and the credentials' access to them",
        )
    for pattern, found in matches.items():
        if not found and warn is not None:  # said only when other patterns match: else the error says it
            warn(f"{config_path}: no file matches {pattern!r}")
    return files
