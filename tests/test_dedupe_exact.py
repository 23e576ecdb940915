"""Exact mode (``--exact``) against a brute-force Python reference: exact sets, file then line order."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from conftest import SHARED
from dedupe_helpers import flags, read_attributes, run, write_corpus
from dolma_sql.text import WORD_PATTERN


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("exact-corpus") / "gen"
    subprocess.run([sys.executable, str(SHARED / "bench" / "gencorpus.py"), str(root), "--docs", "400", "--files", "3", "--seed", "3"],
                   check=True, capture_output=True)
    return root


def documents(corpus: Path) -> list[tuple[str, int, dict]]:
    rows = []
    for path in sorted((corpus / "documents").glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            rows.extend((str(path), line, json.loads(text)) for line, text in enumerate(handle, start=1))
    return rows


def paragraphs_with_offsets(text: str) -> list[tuple[str, int, int]]:
    """Code-point spans: a paragraph's span covers its "\\n" unless that "\\n" ends the text."""
    offset, result = 0, []
    for paragraph in text.split("\n"):
        start = offset
        offset += len(paragraph)
        if offset + 1 < len(text):
            offset += 1
        result.append((paragraph, start, offset))
    return result


def reference(docs, *, mode: str, ngram: int = 0, stride: int = 0, threshold: float = 1.0) -> list[list | None]:
    seen: dict = {}
    output = []
    all_paragraphs = [p for _, _, d in docs for p, _, _ in paragraphs_with_offsets(d["text"])]
    tokens = iter(pl.Series(all_paragraphs, dtype=pl.String).str.extract_all(WORD_PATTERN).to_list())
    for path, line, document in docs:
        if mode == "url":
            url = document["metadata"]["url"]
            output.append([[0, len(url), 1]] if url in seen else None)
            seen.setdefault(url, (path, line, document["id"]))
            continue
        spans = []
        for paragraph, start, end in paragraphs_with_offsets(document["text"]):
            words = next(tokens)
            if not document["text"]:
                continue
            if ngram == 0:
                if paragraph in seen:
                    spans.append([start, end, 1])
                seen.setdefault(paragraph, True)
                continue
            starts = [s for s in range(len(words) - ngram + 1) if s in (0, 1) or stride <= 1 or (s - 1) % stride == 0]
            duplicates = 0
            for s in starts:
                key = tuple(words[s : s + ngram])
                duplicates += key in seen
                seen.setdefault(key, True)
            if len(starts) < 2:
                score = 1.0 if (paragraph,) in seen else 0.0
                seen.setdefault((paragraph,), True)
            else:
                score = float(np.float32(duplicates) / np.float32(len(starts)))
            if score >= threshold:
                spans.append([start, end, score])
        output.append(spans if document["text"] else None)
    return output


def ours(corpus: Path, name: str, mode: list[str]) -> list[list | None]:
    run(["--documents", str(corpus / "documents" / "*.jsonl.gz"), "--dedupe.name", name, *mode, "--dedupe.mode", "exact", "--processes", "2"])
    rows = [row for _, file_rows in sorted(read_attributes(corpus, name).items()) for row in file_rows]
    return [row["attributes"].get("dup") for row in rows]


def url_lineage(docs) -> list[tuple]:
    """Each document whose URL came before, in file then line order, with the first document of that URL."""
    first: dict = {}
    expected = []
    for path, line, document in docs:
        url = document["metadata"]["url"]
        if url in first:
            expected.append((document["id"], path, line, *first[url]))
        first.setdefault(url, (document["id"], path, line))
    return expected


def test_exact_url_dedupe_and_lineage(corpus: Path) -> None:
    docs = documents(corpus)
    got = ours(corpus, "url", ["--dedupe.documents.attribute_name", "dup", "--dedupe.documents.key", "$.metadata.url"])
    assert got == reference(docs, mode="url")
    assert sum(x is not None for x in got) > 5
    lineage = duckdb.sql(f"SELECT * FROM '{corpus}/attributes/url/lineage.parquet' ORDER BY duplicate_file, duplicate_line").fetchall()
    assert [tuple(row) for row in lineage] == url_lineage(docs)


def test_exact_lineage_written_in_row_groups_with_the_smallest_memory_budget(corpus: Path, monkeypatch) -> None:
    """The lineage is built a row group at a time: rows stay in checking order across row groups, and
    DuckDB at its smallest budget (``dedupe.exact_memory_mb``) finds the same duplicates."""
    from dolma_sql.config.dedupe import MIN_EXACT_MEMORY_MB
    from dolma_sql.deduper import exact_finish

    monkeypatch.setattr(exact_finish, "LINEAGE_ROW_GROUP", 7)
    flags = ["--dedupe.documents.attribute_name", "dup", "--dedupe.documents.key", "$.metadata.url", "--dedupe.exact_memory_mb", str(MIN_EXACT_MEMORY_MB)]
    run(["--documents", str(corpus / "documents" / "*.jsonl.gz"), "--dedupe.name", "url-groups", *flags, "--dedupe.mode", "exact", "--processes", "1"])
    table = f"{corpus}/attributes/url-groups/lineage.parquet"
    expected = url_lineage(documents(corpus))
    assert [tuple(row) for row in duckdb.sql(f"SELECT * FROM '{table}'").fetchall()] == expected, "checking order, without sorting"
    groups = pq.ParquetFile(table).metadata
    assert [groups.row_group(i).num_rows for i in range(groups.num_row_groups)] == [7] * (len(expected) // 7) + [len(expected) % 7] * (len(expected) % 7 > 0)


@pytest.mark.parametrize("partitions", [1, 2])
@pytest.mark.parametrize("other_ids", [["b", "c"], ['q"uote', "back\\slash"], [7, 2.5]], ids=["plain", "escaped", "numbers"])
def test_exact_lineage_shows_ids_as_the_documents_have_them(tmp_path: Path, other_ids: list, partitions: int) -> None:
    """A string id unquoted and unescaped (whether or not every id of a file is a plain string), a number as
    its text, a missing id as null, with one hash partition or several."""
    first = [{"id": "a", "text": "x", "metadata": {"url": "u1"}}, {"id": "ünï", "text": "x", "metadata": {"url": "u2"}},
             {"text": "x", "metadata": {"url": "u3"}}, {"id": "", "text": "x", "metadata": {"url": "u4"}}]
    second = [{"id": other_ids[0], "text": "x", "metadata": {"url": "u2"}}, {"id": other_ids[1], "text": "x", "metadata": {"url": "u1"}},
              {"id": "d", "text": "x", "metadata": {"url": "u3"}}, {"id": "e", "text": "x", "metadata": {"url": "u4"}}]
    write_corpus(tmp_path, {"a": first, "b": second})
    run([*flags(tmp_path, "--dedupe.mode", "exact", "--dedupe.exact_partitions", str(partitions), paragraphs=False, bloom=None), "--processes", "1"])
    lineage = pq.read_table(tmp_path / "attributes" / "dd" / "lineage.parquet").select(["duplicate_id", "kept_id"]).to_pylist()
    shown = [str(i) if not isinstance(i, str) else i for i in other_ids]
    assert [(row["duplicate_id"], row["kept_id"]) for row in lineage] == [(shown[0], "ünï"), (shown[1], "a"), ("d", None), ("e", "")]


def test_exact_paragraph_dedupe(corpus: Path) -> None:
    got = ours(corpus, "para", ["--dedupe.paragraphs.attribute_name", "dup"])
    assert got == reference(documents(corpus), mode="para")
    assert sum(len(x or []) for x in got) > 100


def test_exact_ngram_dedupe(corpus: Path) -> None:
    mode = ["--dedupe.paragraphs.attribute_name", "dup", "--dedupe.paragraphs.by_ngram.ngram_length", "5",
            "--dedupe.paragraphs.by_ngram.stride", "2", "--dedupe.paragraphs.by_ngram.overlap_threshold", "0.25"]
    got = ours(corpus, "ngram", mode)
    assert got == reference(documents(corpus), mode="para", ngram=5, stride=2, threshold=0.25)
    assert sum(len(x or []) for x in got) > 50


def test_a_finished_exact_run_is_kept_until_an_input_or_an_output_changes(tmp_path: Path, monkeypatch) -> None:
    """A rerun of a finished run does no work and reports what the outputs hold; an input edited, an output
    deleted, or the attribute set rewritten by another dedupe, each redo the run."""
    from dolma_sql.deduper import extract

    docs = [{"id": str(i), "text": f"one\ntwo {i % 3}", "metadata": {"url": f"u{i % 4}"}} for i in range(12)]
    write_corpus(tmp_path, {"a": docs[:6], "b": docs[6:]})
    args = [*flags(tmp_path, "--dedupe.mode", "exact", bloom=None), "--processes", "1"]
    first = run(args)
    attributes = tmp_path / "attributes" / "dd"
    outputs = sorted(attributes.glob("*.jsonl.gz")) + [attributes / "lineage.parquet"]
    stamps = [(path.read_bytes(), path.stat().st_mtime_ns) for path in outputs]
    extracted = []
    monkeypatch.setattr(extract, "extract_file", lambda *a, **k: extracted.append(a) or pytest.fail("extracted again"))
    again = run(args)
    assert [(path.read_bytes(), path.stat().st_mtime_ns) for path in outputs] == stamps, "nothing rewritten"
    assert (again.stats.files, again.stats.skipped_files) == (0, 2)
    assert (again.stats.documents, again.stats.marked_spans, again.lineage) == (first.stats.documents, first.stats.marked_spans, first.lineage)
    monkeypatch.undo()

    outputs[0].unlink()
    assert run(args).stats.files == 2 and outputs[0].exists()
    write_corpus(tmp_path, {"b": docs[6:] + [{"id": "late", "text": "one", "metadata": {"url": "u9"}}]})
    assert run(args).stats.documents == 13
    exact = read_attributes(tmp_path)
    run(flags(tmp_path, paragraphs=False))  # a Bloom run of URLs rewrites the set's files
    assert read_attributes(tmp_path) != exact
    assert run(args).stats.files == 2, "redone: the files are not those the exact run left"
    assert read_attributes(tmp_path) == exact


def test_a_bloom_rerun_never_keeps_another_modes_files_as_its_own(tmp_path: Path) -> None:
    """Bloom, then exact into the same attribute set, then Bloom again: the records of the first Bloom run no longer
    stand for the files, so the rerun redoes them (against its saved filter) instead of keeping the exact run's."""
    docs = [{"id": str(i), "text": f"one\ntwo {i % 3}", "metadata": {"url": f"u{i % 4}"}} for i in range(12)]
    write_corpus(tmp_path, {"a": docs[:6], "b": docs[6:]})
    bloom = flags(tmp_path, paragraphs=False)
    assert run(bloom).stats.files == 2
    run([*flags(tmp_path, "--dedupe.mode", "exact", bloom=None), "--processes", "1"])
    exact = read_attributes(tmp_path)
    again = run(bloom)
    assert (again.stats.files, again.stats.skipped_files) == (2, 0)
    assert read_attributes(tmp_path) != exact
