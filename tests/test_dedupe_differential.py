"""dolma-sql dedupe against upstream dolma 1.2.1 on generated corpora: identical duplicate marks.

Both filters are sized for a false-positive rate of 1e-9, so neither makes an error on this data and
the comparison is exact. Upstream runs with one process (with more, its "first occurrence" depends on
thread scheduling); ours runs with two. The one documented difference is normalised, not ignored:
upstream decides whether a paragraph's span includes its separator by comparing a code-point offset
with the text's *byte* length, so on non-ASCII text its last span ends past the text.
:func:`upstream_offsets` re-derives upstream's numbers from ours, paragraph by paragraph.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED, run_oracle
from dedupe_helpers import run

pytestmark = pytest.mark.oracle

GENCORPUS = SHARED / "bench" / "gencorpus.py"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dedupe-corpus")
    subprocess.run([sys.executable, str(GENCORPUS), str(root / "gen"), "--docs", "900", "--files", "3", "--seed", "11"],
                   check=True, capture_output=True)
    return root / "gen"


def paragraph_offsets(text: str, separator: str, *, upstream: bool) -> list[tuple[int, int]]:
    """Every paragraph's span: upstream's rule (byte length, +1) or ours (code points, separator length)."""
    total = len(text.encode()) if upstream else len(text)
    step = 1 if upstream else len(separator)
    offset, spans = 0, []
    for paragraph in text.split(separator):
        start = offset
        offset += len(paragraph)
        if offset + step < total:  # upstream: `offset < byte_length - 1`, then +1 whatever the separator
            offset += step
        spans.append((start, offset))
    return spans


def upstream_offsets(text: str, separator: str, ours: list[list]) -> list[list]:
    """Map our reported spans (in paragraph order) to the numbers upstream reports for the same paragraphs."""
    mine = paragraph_offsets(text, separator, upstream=False)
    theirs = paragraph_offsets(text, separator, upstream=True)
    mapped, cursor = [], 0
    for start, end, score in ours:
        while mine[cursor] != (start, end):
            cursor += 1
        mapped.append([*theirs[cursor], score])
        cursor += 1
    return mapped


def load(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def documents(corpus: Path) -> dict[str, list[dict]]:
    return {p.name: load(p) for p in sorted((corpus / "documents").glob("*.jsonl.gz"))}


def dedupe_both(corpus: Path, oracle: Path, name: str, mode: list[str]) -> tuple[dict, dict]:
    filter_args = ["--bloom_filter.estimated_doc_count", "1000000", "--bloom_filter.desired_false_positive_rate", "1e-9",
                   "--no-bloom_filter.read_only"]
    glob = str(corpus / "documents" / "*.jsonl.gz")
    shutil.rmtree(corpus / "attributes", ignore_errors=True)
    run_oracle(oracle, ["dedupe", "--documents", glob, "--dedupe.name", name, *mode, "--bloom_filter.file",
                        str(corpus / f"{name}.upstream.bin"), *filter_args, "--processes", "1"], cwd=corpus)
    upstream = {p.name: load(p) for p in sorted((corpus / "attributes" / name).glob("*.jsonl.gz"))}
    shutil.rmtree(corpus / "attributes")
    run(["--documents", glob, "--dedupe.name", name, *mode, "--bloom_filter.file", str(corpus / f"{name}.ours.bin"),
         *filter_args, "--processes", "2"])
    ours = {p.name: load(p) for p in sorted((corpus / "attributes" / name).glob("*.jsonl.gz"))}
    (corpus / f"{name}.upstream.bin").unlink()
    (corpus / f"{name}.ours.bin").unlink()
    return upstream, ours


def normalised(ours: dict, docs: dict, attribute: str, separator: str = "\n") -> dict:
    result = {}
    for name, rows in ours.items():
        result[name] = []
        for row, document in zip(rows, docs[name]):
            attributes = dict(row["attributes"])
            if attribute in attributes:
                attributes[attribute] = upstream_offsets(document["text"], separator, attributes[attribute])
            result[name].append({**row, "attributes": attributes})
    return result


def marks(result: dict, attribute: str) -> int:
    return sum(len(row["attributes"].get(attribute) or []) for rows in result.values() for row in rows)


def test_url_dedupe_matches_upstream(corpus: Path, oracle: Path) -> None:
    upstream, ours = dedupe_both(corpus, oracle, "url", ["--dedupe.documents.attribute_name", "dup_url", "--dedupe.documents.key", "$.metadata.url"])
    assert all(row["metadata"]["url"].isascii() for rows in documents(corpus).values() for row in rows)  # span end: bytes == code points
    assert marks(ours, "dup_url") > 10
    assert ours == upstream


@pytest.mark.parametrize("extra", [[], ["--dedupe.skip_empty", "--dedupe.min_length", "12"]], ids=["plain", "skip_empty+min_length"])
def test_paragraph_dedupe_matches_upstream(corpus: Path, oracle: Path, extra: list[str]) -> None:
    upstream, ours = dedupe_both(corpus, oracle, "para", ["--dedupe.paragraphs.attribute_name", "dup", *extra])
    assert marks(ours, "dup") > 100
    assert normalised(ours, documents(corpus), "dup") == upstream


@pytest.mark.parametrize("ngram", [("3", "0", "0.3", False), ("6", "3", "0.5", False), ("4", "2", "0.0", True)], ids=["n3", "n6s3", "n4s2-skip-short"])
def test_ngram_dedupe_matches_upstream(corpus: Path, oracle: Path, ngram) -> None:
    length, stride, threshold, skip_short = ngram
    mode = ["--dedupe.paragraphs.attribute_name", "dup", "--dedupe.paragraphs.by_ngram.ngram_length", length,
            "--dedupe.paragraphs.by_ngram.stride", stride, "--dedupe.paragraphs.by_ngram.overlap_threshold", threshold]
    if skip_short:
        mode.append("--dedupe.paragraphs.by_ngram.skip_short_paragraphs")
    upstream, ours = dedupe_both(corpus, oracle, "ngram", mode)
    assert marks(ours, "dup") > 50
    assert normalised(ours, documents(corpus), "dup") == upstream
