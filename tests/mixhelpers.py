"""Reading mixer outputs for comparisons: parsed documents, provenance removed."""

from __future__ import annotations

import glob
import gzip
import json
import os

import zstandard


def read_jsonl(path: str) -> list[dict]:
    opener = gzip.open if path.endswith(".gz") else (lambda p, m: zstandard.open(p, m)) if path.endswith(".zst") else open
    with opener(path, "rt") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_outputs(directory: str) -> list[dict]:
    """All documents under ``directory`` (shards in name order), without ``metadata.provenance``."""
    documents = []
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.json*"), recursive=True)):
        if path.endswith(".tmp"):
            continue
        documents.extend(strip_provenance(doc) for doc in read_jsonl(path))
    return documents


def strip_provenance(document: dict) -> dict:
    """Drop ``metadata.provenance`` (and ``metadata`` if that leaves it empty and it held only provenance)."""
    metadata = document.get("metadata")
    if isinstance(metadata, dict) and "provenance" in metadata:
        metadata = {k: v for k, v in metadata.items() if k != "provenance"}
        document = dict(document)
        if metadata:
            document["metadata"] = metadata
        else:
            del document["metadata"]
    return document
