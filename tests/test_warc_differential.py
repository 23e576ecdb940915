"""Differential tests: dolma-sql warc against upstream ``dolma warc`` 1.2.1 on the same WARC files.

Upstream runs once per configuration for the whole session on the conformance samples and a
generated WARC (tests/warc_corpus.py: varied charsets, boilerplate, licence links, a record without
a digest, binary and plain-text payloads, a resource record, a huge and a deeply nested page);
dolma-sql runs the same config file. Every document must be equal but for ``added``. Where
upstream is defective (a clock instead of a date, a crash, a half-written output) the test says
what dolma-sql does instead (docs/differences.md lists these).
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CONFORMANCE, run_oracle
from warc_corpus import CLOCK_DATED, document_differences, html_page, response, warc_bytes, write_warc

pytestmark = pytest.mark.oracle

SAMPLES = sorted((CONFORMANCE / "tests" / "data" / "warc").glob("*.warc.gz"))
ADDED = "2024-05-01T12:00:00.000Z"
# dolma-sql's own options: a fixed added (the default time limit counts CPU seconds, so a loaded machine keeps every page)
OURS = {"added": ADDED}
CONFIGS = {
    # every field of the page compared: the decoded html too
    "resiliparse": {"linearizer": "resiliparse", "store_html_in_metadata": True,
                    "pre": {"taggers": ["cc_re"]}, "post": {"taggers": ["char_length_v1", "whitespace_tokenizer_v1"]}},
    # a pre tagger sees the empty text; post.skip keeps the pages with a licence link
    "trafilatura": {"linearizer": "trafilatura", "pre": {"taggers": ["char_length_v1"]},
                    "post": {"taggers": ["cc_re_fast"], "skip": True}},
    # pre.skip keeps the pages with a licence link
    "pre_skip": {"linearizer": "resiliparse", "pre": {"taggers": ["cc_re"], "skip": True}, "post": {"taggers": ["bytes_length_v1"]}},
}
# generated with no warcinfo record and no declared charset; klingon.warc.gz is the same file with an unknown charset
NO_INFO = {"records": 4, "seed": 1, "specials": False, "truncated": False, "info": False}


def generated(folder: Path, name: str = "generated.warc.gz", **options) -> Path:
    options = {"records": 18, "truncated": False, "huge_size": 30, "nest_depth": 1200} | options
    write_warc(folder / name, **options)
    return folder / name


@pytest.fixture(scope="session")
def warcs(tmp_path_factory) -> Path:
    """The conformance samples and generated WARC files in one folder."""
    folder = tmp_path_factory.mktemp("warc-inputs")
    for sample in SAMPLES:
        shutil.copy(sample, folder / sample.name)
    generated(folder)
    generated(folder, "noinfo.warc.gz", charset_override="", **NO_INFO)
    # an uncompressed WARC (its output is plain.jsonl.gz too)
    compressed = generated(folder, "plain.warc.gz", records=3, seed=3, specials=False)
    (folder / "plain.warc").write_bytes(gzip.decompress(compressed.read_bytes()))
    compressed.unlink()
    return folder


def write_config(root: Path, documents: list[str], destination: Path, **options) -> Path:
    config = {"documents": documents, "destination": [str(destination)], "source_name": "cc-test", "processes": 2, **options}
    path = root / f"{destination.name}.json"
    path.write_text(json.dumps(config))
    return path


def run_dolma_sql(config: Path, cwd: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "dolma_sql", "-c", str(config), "warc", *flags],
                          cwd=cwd, capture_output=True, text=True)


def read_documents(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def outputs(folder: Path) -> dict[str, list[dict]]:
    return {path.name: read_documents(path) for path in sorted(folder.glob("*.jsonl.gz"))}


def clock_fields(document: dict, file: str) -> set[str]:
    """The fields upstream fills from the clock for this document: never compared."""
    ignored = {"added"}
    if document["metadata"]["warc_url"] in CLOCK_DATED:
        ignored.add("created")
    if file.startswith(("noinfo", "klingon")):
        ignored.add("metadata.warc_date")
    return ignored


def assert_same_documents(upstream: dict[str, list[dict]], ours: dict[str, list[dict]], ignore: set[str] = frozenset()) -> None:
    assert sorted(ours) == sorted(upstream), "output files differ"
    problems = []
    for name, expected_docs in upstream.items():
        got_docs = ours[name]
        if [d["id"] for d in got_docs] != [d["id"] for d in expected_docs]:
            problems.append(f"{name}: ids {[d['id'] for d in expected_docs]} != {[d['id'] for d in got_docs]}")
            continue
        for expected, got in zip(expected_docs, got_docs):
            problems += [f"{name} {expected['metadata']['warc_url']}: {d}" for d in document_differences(expected, got, clock_fields(expected, name) | ignore)]
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="session")
def upstream_outputs(oracle, warcs, tmp_path_factory):
    """Upstream's documents per config, each run once per session."""
    done: dict[str, dict] = {}

    def get(name: str) -> dict[str, list[dict]]:
        if name not in done:
            root = tmp_path_factory.mktemp(f"upstream-{name}")
            config = write_config(root, [str(warcs / "*.warc*")], root / "out", **CONFIGS[name])
            run_oracle(oracle, ["-c", str(config), "warc"], cwd=root)
            done[name] = outputs(root / "out")
        return done[name]

    return get


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_same_documents_as_upstream(name, upstream_outputs, warcs, tmp_path):
    """Same files, documents, ids, text, metadata and inline attributes as upstream, but for ``added``.

    Where upstream stamps a document with the clock (no usable HTTP Date: ``created``; no warcinfo
    record: ``metadata.warc_date``) dolma-sql writes the run's ``added``, so a rerun writes the same bytes.
    """
    upstream = upstream_outputs(name)
    config = write_config(tmp_path, [str(warcs / "*.warc*")], tmp_path / "out", **OURS, **CONFIGS[name])
    result = run_dolma_sql(config, tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    ours = outputs(tmp_path / "out")
    assert_same_documents(upstream, ours)
    skips = CONFIGS[name]["pre"].get("skip") or CONFIGS[name]["post"].get("skip")
    assert 5 < sum(map(len, ours.values())) < 30 if skips else sum(map(len, ours.values())) > 60
    for file, docs in ours.items():
        for doc in docs:
            assert doc["added"] == ADDED
            if "created" in clock_fields(doc, file):
                assert doc["created"] == ADDED, doc["metadata"]["warc_url"]
            if "metadata.warc_date" in clock_fields(doc, file):
                assert doc["metadata"]["warc_date"] == ADDED, doc["metadata"]["warc_url"]


def test_unknown_charset_is_detected(oracle, upstream_outputs, tmp_path):
    """An unknown charset label: upstream dies (LookupError, the whole file lost); dolma-sql detects the
    charset as if none were declared, so each page becomes the document upstream writes for it undeclared."""
    generated(tmp_path, "klingon.warc.gz", charset_override="x-klingon", **NO_INFO)
    upstream = subprocess.run([str(oracle), "warc", "--documents", str(tmp_path / "klingon.warc.gz"), "--destination",
                               str(tmp_path / "upstream"), "--source_name", "cc-test"], capture_output=True, text=True, cwd=tmp_path)
    assert upstream.returncode != 0 and "LookupError: unknown encoding: x-klingon" in upstream.stderr

    # a documents path without a folder: upstream's path handling fails on it (ValueError), dolma-sql reads it
    config = write_config(tmp_path, ["klingon.warc.gz"], tmp_path / "out", **OURS, **CONFIGS["resiliparse"])
    result = run_dolma_sql(config, tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    ours = outputs(tmp_path / "out")
    # the declared charset makes each record longer, so the offsets differ from the undeclared file's
    assert_same_documents({"klingon.jsonl.gz": upstream_outputs("resiliparse")["noinfo.jsonl.gz"]}, ours, {"metadata.uncompressed_offset"})
    assert len(ours["klingon.jsonl.gz"]) == NO_INFO["records"]
    assert all(doc["metadata"]["warc_date"] == ADDED for doc in ours["klingon.jsonl.gz"])


def test_truncated_file(oracle, tmp_path):
    """A .warc.gz cut inside its last record: upstream dies with a traceback (EOFError) and leaves a
    half-written output. dolma-sql names the file and the cut record's offset, without a traceback;
    if it keeps the complete records (exit 0) they are the documents upstream writes for the same
    file without the cut record, otherwise nothing is committed."""
    options = {"records": 5, "seed": 2, "specials": False}
    corpus = write_warc(tmp_path / "cut.warc.gz", **options)
    upstream = subprocess.run([str(oracle), "warc", "--documents", str(tmp_path / "cut.warc.gz"), "--destination",
                               str(tmp_path / "upstream"), "--source_name", "cc-test"], capture_output=True, text=True, cwd=tmp_path)
    assert upstream.returncode != 0 and "EOFError" in upstream.stderr
    assert (tmp_path / "upstream" / "cut.jsonl.gz").exists()  # half-written: upstream never finished it

    config = write_config(tmp_path, [str(tmp_path / "cut.warc.gz")], tmp_path / "out", **OURS)
    result = run_dolma_sql(config, tmp_path)
    message = result.stdout + result.stderr
    assert "Traceback" not in message
    cut_at = (corpus.offsets[-1], (tmp_path / "cut.warc.gz").stat().st_size)  # the cut record, or where the file ends
    assert "cut.warc.gz" in message and any(str(offset) in message for offset in cut_at), message[-3000:]
    if result.returncode != 0:
        assert not list((tmp_path / "out").glob("*.jsonl.gz"))
        return
    whole = tmp_path / "whole"
    write_warc(whole / "cut.warc.gz", **options, truncated=False)
    run_oracle(oracle, ["warc", "--documents", str(whole / "cut.warc.gz"), "--destination", str(whole / "out"), "--source_name", "cc-test"], cwd=whole)
    assert_same_documents(outputs(whole / "out"), outputs(tmp_path / "out"))
    assert len(outputs(tmp_path / "out")["cut.jsonl.gz"]) == options["records"]



def test_unusable_target_uri(oracle, tmp_path):
    """A target URI without ``scheme://`` (Heritrix's ``dns:`` records, ``mailto:``) or with a port out of
    range: upstream's URL canonicalisation raises and the whole file is lost. dolma-sql rejects those
    records (named in the rejects file) and writes the file's other pages as upstream writes them."""
    odd = ("dns:example.com", "mailto:someone@example.com", "http://example.com:99999/port")
    corpus = write_warc(tmp_path / "clean" / "odd.warc.gz", records=2, seed=5, specials=False, truncated=False)
    rng = random.Random(5)
    extra = b"".join(gzip.compress(warc_bytes(response(rng, uri, "2024-04-23T10:59:00Z", html_page(rng, i).encode(), "text/html; charset=utf-8",
                                                        date="Tue, 23 Apr 2024 10:59:00 GMT")), mtime=0) for i, uri in enumerate(odd))
    (tmp_path / "odd.warc.gz").write_bytes(corpus.path.read_bytes() + extra)
    upstream = subprocess.run([str(oracle), "warc", "--documents", str(tmp_path / "odd.warc.gz"), "--destination",
                               str(tmp_path / "upstream"), "--source_name", "cc-test"], capture_output=True, text=True, cwd=tmp_path)
    assert upstream.returncode != 0 and "ValueError" in upstream.stderr

    config = write_config(tmp_path, [str(tmp_path / "odd.warc.gz")], tmp_path / "out", **OURS, rejects=str(tmp_path / "rejects"))
    result = run_dolma_sql(config, tmp_path)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-4000:]
    run_oracle(oracle, ["warc", "--documents", str(corpus.path), "--destination", str(tmp_path / "clean" / "out"), "--source_name", "cc-test"],
               cwd=tmp_path)
    assert_same_documents(outputs(tmp_path / "clean" / "out"), outputs(tmp_path / "out"))
    rejected = "".join(gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text()
                       for p in (tmp_path / "rejects").rglob("*") if p.is_file())
    assert all(uri in rejected for uri in odd), rejected
