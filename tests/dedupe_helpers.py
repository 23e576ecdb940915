"""Small corpora and runners shared by the dedupe tests."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from dolma_sql import deduper
from dolma_sql.config import load_config
from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.runtime.executors import build_executor


def write_corpus(root: Path, files: dict[str, list[dict]]) -> None:
    """``files``: name -> documents, written as ``root/documents/<name>.jsonl.gz``."""
    for name, documents in files.items():
        path = root / "documents" / f"{name}.jsonl.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            for document in documents:
                handle.write((document if isinstance(document, str) else json.dumps(document)) + "\n")


def flags(root: Path, *extra: str, paragraphs: bool = True, bloom: str | None = "filter.bin", name: str = "dd") -> list[str]:
    mode = ["--dedupe.paragraphs.attribute_name", "dup"] if paragraphs else ["--dedupe.documents.attribute_name", "dup", "--dedupe.documents.key", "$.metadata.url"]
    args = ["--documents", str(root / "documents" / "*.jsonl.gz"), "--dedupe.name", name, *mode]
    if bloom:
        args += ["--bloom_filter.file", str(root / bloom), "--no-bloom_filter.read_only",
                 "--bloom_filter.estimated_doc_count", "100000", "--bloom_filter.desired_false_positive_rate", "1e-9"]
    return args + list(extra)


def run(args: list[str]) -> deduper.Report:
    """Run dedupe in-process with dolma's flags, on the executor they ask for."""
    config = load_config(DeduperConfig, config_file=None, flags=args)
    with build_executor(config.executor.kind, processes=config.processes) as executor:
        return deduper.run(config, executor=executor, quiet=True)


def run_cli(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "dolma_sql", "dedupe", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def read_attributes(root: Path, name: str = "dd") -> dict[str, list[dict]]:
    result = {}
    for path in sorted((root / "attributes" / name).glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            result[path.name] = [json.loads(line) for line in handle]
    return result
