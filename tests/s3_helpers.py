"""Shared pieces of the object-storage tests: this checkout's command line, the outputs under a local
folder or an ``s3://`` prefix read back as one tree (decompressed, ledger records apart), a generated
corpus, and the same config pointed at another root."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import fsspec
import zstandard

from conftest import REPO, SHARED

LEDGER_FOLDER = ".dolma-sql"


def cli(
    args: list[str], cwd: Path, *, env: dict[str, str | None] | None = None, timeout: float = 600, input: str | None = None
) -> subprocess.CompletedProcess:
    """``dolma-sql ARGS`` of this checkout (not an installed copy) in ``cwd``, with the test session's
    environment (the S3 server's AWS variables) updated by ``env`` (a value of None removes a variable)."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    for key, value in (env or {}).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return subprocess.run(
        [sys.executable, "-P", "-m", "dolma_sql", *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout, input=input
    )


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr[-4000:]
    return result


def files_under(root: str) -> dict[str, bytes]:
    """Every file under ``root`` (a local folder or a URL), raw, by path relative to it."""
    fs, path = fsspec.core.url_to_fs(root)
    path = path.rstrip("/")
    fs.invalidate_cache()
    if not fs.exists(path):
        return {}
    return {found[len(path) + 1 :]: fs.cat_file(found) for found in sorted(fs.find(path))}


def decompressed(name: str, data: bytes) -> bytes:
    if name.endswith(".gz"):
        return gzip.decompress(data)
    if name.endswith(".zst"):
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    return data


def tree(root: str, *, under: str = "") -> dict[str, bytes]:
    """The outputs under ``root`` (only those under its sub-folder ``under``, when given), decompressed, by
    relative path: ledger records and documents left out."""
    return {
        name: decompressed(name, data)
        for name, data in files_under(root).items()
        if LEDGER_FOLDER not in name.split("/") and not name.startswith("documents/") and name.startswith(under)
    }


def ledger_records(root: str) -> list[str]:
    """The relative paths of the ledger records under ``root``."""
    return [name for name in files_under(root) if LEDGER_FOLDER in name.split("/")]


def write_corpus(root: Path, *, docs: int = 300, files: int = 3, seed: int = 9) -> Path:
    """A gencorpus corpus in ``root/documents`` (with duplicates, PII, short documents) and a line-aligned
    attribute set ``a`` (a document score and PII-like spans) in ``root/attributes/a``."""
    subprocess.run(
        [sys.executable, str(SHARED / "bench" / "gencorpus.py"), str(root), "--docs", str(docs), "--files", str(files), "--seed", str(seed)],
        check=True,
        capture_output=True,
    )
    (root / "gencorpus_manifest.json").unlink(missing_ok=True)
    rng = random.Random(seed)
    for path in sorted((root / "documents").iterdir()):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            documents = [json.loads(line) for line in handle]
        rows = []
        for document in documents:
            text = document["text"]
            starts = sorted(rng.sample(range(len(text)), min(3, len(text) // 10)))
            spans = [[start, min(len(text), start + rng.randint(1, 12)), rng.choice([0.2, 0.9])] for start in starts]
            rows.append({"id": document["id"], "attributes": {"score": [[0, len(text), round(rng.random(), 4)]], "pii": spans}})
        target = root / "attributes" / "a" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode(), mtime=0))
    return root


def rooted(value, root: str, *, placeholder: str = "ROOT"):
    """A config (dicts, lists, strings) with ``placeholder`` in its strings replaced by ``root``."""
    if isinstance(value, dict):
        return {key: rooted(item, root, placeholder=placeholder) for key, item in value.items()}
    if isinstance(value, list):
        return [rooted(item, root, placeholder=placeholder) for item in value]
    return value.replace(placeholder, root) if isinstance(value, str) else value
