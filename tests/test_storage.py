"""The storage layer: URLs of every filesystem behave alike, and the one commit protocol shows an
output whole or not at all, with temp names no other writer shares."""

from __future__ import annotations

import gzip
import os
import subprocess
import uuid
from pathlib import Path

import fsspec
import pytest
import zstandard

from dolma_sql import storage
from dolma_sql.errors import ConfigError, OutputError
from dolma_sql.formats.lines import iter_line_batches
from dolma_sql.storage import urls

LINES = [b'{"id":"1","text":"a"}\n', b'{"id":"2","text":"\xc3\xa9"}\n']


@pytest.fixture(params=["plain", "file", "memory"])
def root(request, tmp_path) -> str:
    """A folder URL of each kind: a plain local path, a ``file://`` URL and fsspec's in-memory filesystem."""
    if request.param == "plain":
        yield str(tmp_path)
    elif request.param == "file":
        yield f"file://{tmp_path}"
    else:
        folder = f"memory://storage-test-{uuid.uuid4().hex}"
        yield folder
        fsspec.filesystem("memory").rm(folder.split("://")[1], recursive=True)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".jsonl.zst"])
def test_what_is_written_reads_back_on_every_filesystem(root, suffix):
    url = storage.join(root, "docs", f"part{suffix}")
    with storage.output(url) as handle:
        for line in LINES:
            handle.write(line)
    assert storage.exists(url) and storage.size(url) > 0
    assert [line.encode() for batch in iter_line_batches(url, batch_bytes=8) for line in batch.lines.to_pylist()] == LINES
    raw = storage.urls.read_bytes(url)
    decoded = {".jsonl": lambda d: d, ".jsonl.gz": gzip.decompress, ".jsonl.zst": lambda d: zstandard.ZstdDecompressor().decompressobj().decompress(d)}
    assert decoded[suffix](raw) == b"".join(LINES)


def test_globs_listing_and_relative_paths_agree_across_filesystems(root):
    for name in ("b/2.jsonl", "a/1.jsonl", "a/deep/3.jsonl", "a/skip.txt"):
        storage.write_bytes(storage.join(root, name), b"x\n")
    found = storage.expand_globs([storage.join(root, "a", "**", "*.jsonl"), storage.join(root, "*", "*.jsonl")], config_path="documents")
    assert [urls.relative(url, root) for url in found] == ["a/1.jsonl", "a/deep/3.jsonl", "b/2.jsonl"]  # each pattern sorted, no repeats
    assert all(url.startswith(root.split("://")[0] + "://") or "://" not in root for url in found)
    assert urls.relative(urls.common_parent(found[:2]), root) == "a"
    assert storage.listdir(storage.join(root, "a")) == ["1.jsonl", "deep", "skip.txt"]
    assert storage.listdir(storage.join(root, "missing")) == []
    warned: list[str] = []
    with pytest.raises(ConfigError, match="no files match"):
        storage.expand_globs([storage.join(root, "*.nothing")], config_path="documents", warn=warned.append)
    assert warned == []  # the error says it: no warning before it
    storage.expand_globs([storage.join(root, "*.nothing"), storage.join(root, "b", "*")], config_path="documents", warn=warned.append)
    assert warned == [f"documents: no file matches {storage.join(root, '*.nothing')!r}"]


def test_a_failed_write_leaves_nothing_under_the_final_name_nor_a_temp_file(root, tmp_path):
    url = storage.join(root, "out", "part.jsonl.gz")
    storage.write_bytes(url, b"old\n")
    with pytest.raises(RuntimeError):
        with storage.output(url, staging=str(tmp_path / "staging")) as handle:
            handle.write(b"new, half written\n")
            raise RuntimeError("the unit failed")
    assert storage.urls.read_bytes(url) == b"old\n", "the previous output stays whole"
    assert storage.listdir(storage.join(root, "out")) == ["part.jsonl.gz"]
    assert not list((tmp_path / "staging").glob("*"))


def test_staged_files_are_committed_only_when_the_block_ends(root, tmp_path):
    url = storage.join(root, "tables", "t.parquet")
    with storage.staged(url, staging=str(tmp_path / "staging")) as local:
        Path(local).write_bytes(b"PAR1")
        assert not storage.exists(url)
    assert storage.urls.read_bytes(url) == b"PAR1"
    assert not list((tmp_path / "staging").glob("*"))


def test_temp_names_are_unique_per_writer(tmp_path):
    """Two writers of one output (two runs on one folder) never share a temp file; the last commit wins whole."""
    url = str(tmp_path / "part.jsonl")
    first, second = storage.output(url), storage.output(url)
    assert first.temp_path != second.temp_path
    first.write(b"first\n")
    second.write(b"second\n")
    second.commit()
    first.commit()
    assert Path(url).read_bytes() == b"first\n"
    assert [p.name for p in tmp_path.iterdir()] == ["part.jsonl"]


def test_a_volume_that_cannot_rename_gets_a_copy_from_the_staging_folder(tmp_path):
    url = str(tmp_path / "volume" / "filter.bin")
    with storage.staged(url, staging=str(tmp_path / "staging"), rename=False) as local:
        assert Path(local).parent == tmp_path / "staging"
        Path(local).write_bytes(b"bits")
    assert Path(url).read_bytes() == b"bits" and list((tmp_path / "staging").iterdir()) == []


@pytest.fixture()
def full_disk(tmp_path):
    """A 256 KiB tmpfs: writing more than that fails with ENOSPC, as on a full disk."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_is_an_error_naming_the_output_and_leaves_no_temp_file(full_disk):
    url = str(full_disk / "part.jsonl")
    with pytest.raises(OutputError, match="No space left on device") as error:
        with storage.output(url) as handle:
            for _ in range(100):
                handle.write(os.urandom(16 << 10))
    assert error.value.path == url and "bytes free" in error.value.message
    assert list(full_disk.iterdir()) == []


def test_an_unwritable_folder_is_refused_before_any_work(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match="not writable") as error:
        storage.check_writable(str(blocker / "out"), where="destination")
    assert error.value.path == "destination"
    (tmp_path / "old").mkdir()
    storage.check_writable(str(tmp_path / "old"), where="destination")
    storage.check_writable(str(tmp_path / "new" / "folder"), where="destination")
    assert [p.name for p in (tmp_path / "old").iterdir()] == []  # the probe is gone
    assert not (tmp_path / "new").exists()  # so are the folders it made: a run stopped before its outputs leaves no trace
