"""Small corpora with planted near-duplicates and runners shared by the minhash-mode tests."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import duckdb

from dedupe_helpers import read_attributes

from dolma_sql import deduper
from dolma_sql.config import config_from
from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.runtime import SerialExecutor

VOCABULARY = [f"w{index}" for index in range(5000)]


def random_text(rng: random.Random, words: int = 120) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(words))


def edited(rng: random.Random, text: str, edits: int) -> str:
    """``text`` with ``edits`` words replaced at random places."""
    words = text.split()
    for _ in range(edits):
        words[rng.randrange(len(words))] = rng.choice(VOCABULARY)
    return " ".join(words)


def write_files(root: Path, files: dict[str, list[dict]]) -> None:
    """``files``: name -> documents, written as ``root/documents/<name>.jsonl.gz``."""
    for name, documents in files.items():
        path = root / "documents" / f"{name}.jsonl.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.writelines(json.dumps(document) + "\n" for document in documents)


def planted_corpus(root: Path, *, seed: int = 0, originals: int = 60, copies: int = 25, files: int = 3) -> dict[str, tuple[str, int]]:
    """Unrelated documents, and ``copies`` near-copies (1 edit in 120 words) or exact copies of some of them, shuffled
    over ``files`` files. Returns each copy's id -> the id of its original."""
    rng = random.Random(seed)
    documents = [{"id": f"o{index}", "text": random_text(rng)} for index in range(originals)]
    planted = {}
    for index in range(copies):
        original = documents[index]
        planted[f"c{index}"] = original["id"]
        documents.append({"id": f"c{index}", "text": edited(rng, original["text"], index % 2)})
    rng.shuffle(documents)
    write_files(root, {f"part-{index}": documents[index::files] for index in range(files)})
    return planted


def minhash_config(root: Path, **minhash) -> dict:
    return {"documents": [f"{root}/documents/*.jsonl.gz"], "dedupe": {"name": "mh", "minhash": {"attribute_name": "near", **minhash}}}


def run_minhash(config: dict, executor=None) -> deduper.Report:
    return deduper.run(config_from(config, DeduperConfig), executor=executor or SerialExecutor(), quiet=True)


def attribute_rows(root: Path, name: str = "mh") -> dict[str, list[dict]]:
    return read_attributes(root, name)


def document_rows(root: Path) -> dict[str, list[dict]]:
    return read_attributes(root, "../documents")  # the same reader: each file's JSON lines, by file name


def lineage(path: Path) -> list[dict]:
    return duckdb.sql(f"SELECT * FROM read_parquet('{path}')").to_arrow_table().to_pylist()


def removed_ids(root: Path, name: str = "mh", attribute: str = "near") -> set[str]:
    return {row["id"] for rows in attribute_rows(root, name).values() for row in rows if attribute in row["attributes"]}
