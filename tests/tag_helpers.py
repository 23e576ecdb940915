"""Shared pieces of the tagger tests: small corpora (conformance, generated, edge cases) and attribute-file comparison."""

from __future__ import annotations

import gzip
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import CONFORMANCE, SHARED

EDGE_VOCABULARY = [
    "a", "b", "the", "and", "é", "naïve", "İstanbul", "ΣΟΦΙΑ", "straße", "日本語", "한국어", "ไทย", "مرحبا", "שלום",
    "😊", "👩‍👩‍👧", "🇫🇷", "e\u0301", "\u200b", "\u00a0", "\u3000", "\x1c", "…", "#tag", "-", "*", ".", "?", "!", '"',
    "{", "}", "lorem", "ipsum", "javascript", "anal", "2 girls 1 cup", "x@y.com", "(a@b.org", "ask@bufvc.ac.uk",
    "555-123-4567", "(555) 123 4567", "192.168.0.1", "1.2.3.4", "300.1.1.1", "doi", "isbn", "١٢٣٤٥٦٧٨٩٠", "!!!", "--",
    "aaaa", "abab", "ab ab ab ab", "la la la la la", "\u2028", "\x08http://example.com/x", "www.a.com",
]


def write_jsonl_gz(path: Path, documents: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for document in documents:
            handle.write(json.dumps(document, ensure_ascii=False) + "\n")


def edge_documents(count: int = 400, seed: int = 7) -> list[dict]:
    """Random texts over a vocabulary of the cases the taggers treat specially (non-ASCII, PII, punctuation, …)."""
    rng = random.Random(seed)
    fixed = ["", " ", "\n", "\n\n\n", "a", "x\n\nx\n\n", "- a\n* b…\n- a", "\x1c a\x1db", "mail me at foo@bar.org\nthanks",
             "call 555 123 4567 now", "contact info@eun.org", "héllo 😊", "!!! ???\n...\n😊😊", "the the the the the the the the the the the"]
    texts = fixed + [
        "".join(rng.choice(EDGE_VOCABULARY + [" ", " ", "\n", "\n\n"]) + (" " if rng.random() < 0.6 else "") for _ in range(rng.randint(1, 80)))
        for _ in range(count)
    ]
    documents = []
    for index, text in enumerate(texts):
        document = {"id": f"edge-{index}", "text": text}
        if index % 3:
            document["source"] = "edge"
        documents.append(document)
    return documents


def conformance_documents() -> list[dict]:
    """The documents of upstream's ``tests/data/provided`` (ten web pages with metadata)."""
    return read_rows(CONFORMANCE / "tests/data/provided/documents/000.json.gz")


def build_corpora(root: Path) -> dict[str, Path]:
    """``name -> corpus dir`` each holding ``documents/…``: conformance documents, a generated corpus, edge cases."""
    corpora = {}
    provided = root / "provided"
    (provided / "documents").mkdir(parents=True)
    shutil.copy(CONFORMANCE / "tests/data/provided/documents/000.json.gz", provided / "documents")
    corpora["provided"] = provided
    multiple = root / "multiple"
    (multiple / "documents").mkdir(parents=True)
    for source in sorted((CONFORMANCE / "tests/data/multiple_files").glob("*")):
        shutil.copy(source, multiple / "documents" / source.name)
    corpora["multiple"] = multiple
    generated = root / "generated"
    subprocess.run([sys.executable, str(SHARED / "bench/gencorpus.py"), str(generated), "--docs", "400", "--files", "2", "--seed", "11"],
                   check=True, capture_output=True)
    corpora["generated"] = generated
    edge = root / "edge"
    write_jsonl_gz(edge / "documents" / "edge.jsonl.gz", edge_documents())
    corpora["edge"] = edge
    return corpora


def read_rows(path: Path) -> list[dict]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def assert_same_attributes(expected_path: Path, actual_path: Path, tolerance: float = 1e-5) -> None:
    """Same ids and sources in the same order, same keys, same spans, scores within ``tolerance``."""
    expected, actual = read_rows(expected_path), read_rows(actual_path)
    assert len(expected) == len(actual), f"{actual_path}: {len(actual)} rows, upstream {len(expected)}"
    for line, (want, got) in enumerate(zip(expected, actual), start=1):
        where = f"{actual_path}:{line} ({want['id']})"
        assert list(got) == ["id", "attributes", "source"], where
        assert got["id"] == want["id"] and got["source"] == want["source"], where
        assert set(got["attributes"]) == set(want["attributes"]), f"{where}: keys differ {set(got['attributes']) ^ set(want['attributes'])}"
        for key, spans in want["attributes"].items():
            mine = got["attributes"][key]
            assert len(mine) == len(spans), f"{where} {key}: {mine[:5]} != {spans[:5]}"
            for (s0, e0, v0), (s1, e1, v1) in zip(spans, mine):
                assert (s0, e0) == (s1, e1) and abs(v0 - v1) <= tolerance, f"{where} {key}: {mine} != {spans}"


UPSTREAM_TAGGER = Path(__file__).resolve().parent / "upstream_tagger.py"


def upstream_tagger_outputs(oracle: Path, documents: list[dict], requests: list[str], root: Path) -> dict[str, list[dict]]:
    """Each requested tagger's per-document output from upstream's own classes, in one oracle run (see ``upstream_tagger.py``)."""
    source, target = root / "docs.json", root / "upstream.json"
    source.write_text(json.dumps(documents))
    subprocess.run([str(oracle.parent / "python"), str(UPSTREAM_TAGGER), str(source), str(target), *requests],
                   check=True, capture_output=True, timeout=600)
    return json.loads(target.read_text())


def tagger_attributes(row: dict, prefix: str) -> dict[str, list]:
    """The spans of one tagger in an attribute row, keyed by span type (keys starting ``prefix`` = ``<exp>__<tagger>__``)."""
    return {key[len(prefix):]: spans for key, spans in row["attributes"].items() if key.startswith(prefix)}


def assert_same_spans(mine: dict[str, list], want: dict[str, list], where: str, tolerance: float = 1e-5) -> None:
    """Same span types (upstream's sanitised as on output), same offsets, scores within ``tolerance``."""
    want = {re.sub(r"[^a-zA-Z0-9_]", "_", key): spans for key, spans in want.items()}
    assert set(mine) == set(want), (where, set(mine) ^ set(want))
    for key, spans in want.items():
        assert [s[:2] for s in mine[key]] == [s[:2] for s in spans], (where, key, mine[key], spans)
        assert all(abs(a[2] - b[2]) <= tolerance for a, b in zip(mine[key], spans)), (where, key, mine[key], spans)


def hide_module(monkeypatch, name: str) -> None:
    """Make ``name`` look uninstalled to the taggers' start-up dependency check (``importlib.util.find_spec``)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda module, *args: None if module == name else real(module, *args))
