"""allowlist_wikidata taggers against upstream's own classes on the same local list (issue 18, item 5).

Hosts starting with ``w`` or ``.`` after ``www.`` are left out: upstream strips them with
``lstrip("www.")`` and dolma-sql strips exactly ``www.`` (README, differences).
"""

from __future__ import annotations

import json

import pytest

from tag_helpers import assert_same_spans, read_rows, tagger_attributes, upstream_tagger_outputs, write_jsonl_gz
from test_tag_cli import fail, ok

ROWS = [
    [{"url": "https://www.nytimes.com/", "description": "newspaper"}, {"url": "http://news.bbc.co.uk/x", "description": "satire"},
     {"url": None, "description": None}, {"url": "https://[::1]/", "description": "odd"}, {"url": "https://sub.deep.example.org/path"}],
    [{"url": "HTTPS://Arxiv.ORG"}, {"url": "example.net:8080/a"}, {"url": "http://192.168.0.1 localhost"}, {"url": "ftp://x"}],
]
URLS = ["https://www.nytimes.com/section/world", "http://nytimes.com", "http://other.co.uk/", "https://co.uk", "https://deep.example.org",
        "https://example.org/", "https://a.b.c.example.org/z", "https://arxiv.org/abs/1", "http://www.arxiv.org", "http://example.net/",
        "", None, "not a url", "https://bbc.co.uk", "https://x.news.bbc.co.uk/a"]


def documents() -> list[dict]:
    return [{"id": f"a{i}", "text": "text " * i, "metadata": {} if url is None else {"url": url}} for i, url in enumerate(URLS)]


@pytest.fixture()
def allowlist(tmp_path):
    path = tmp_path / "response.json"
    path.write_text("\n".join(json.dumps(rows) for rows in ROWS) + "\n")
    return path


@pytest.mark.oracle
@pytest.mark.parametrize("tagger", ["allowlist_wikidata_v1", "allowlist_wikidata_cleaned_v1"])
def test_allowlist_taggers_equal_upstream_code(tagger, allowlist, oracle, tmp_path):
    expected = upstream_tagger_outputs(oracle, documents(), [f"{tagger}={allowlist}"], tmp_path)[tagger]
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents())
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", tagger, "--experiment", "w", "--models.url_allowlist", str(allowlist)], tmp_path)
    rows = read_rows(tmp_path / "attributes/w/d.jsonl.gz")
    for document, want, row in zip(documents(), expected, rows):
        assert "__error__" not in want, want
        assert_same_spans(tagger_attributes(row, f"w__{tagger}__"), want, str(document["metadata"]))
    assert 3 <= sum(bool(tagger_attributes(row, f"w__{tagger}__")) for row in rows) < len(rows)


def test_allowlist_taggers_need_a_list(tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:1])
    assert "--models.url_allowlist" in fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "allowlist_wikidata_v1"], tmp_path)


@pytest.mark.parametrize(("tagger", "option", "kind"), [("allowlist_wikidata_v1", "url_allowlist", "allowlist"), ("domain_blocklist_utp_v1", "url_blocklist", "blocklist")])
def test_a_missing_list_file_is_named_before_any_work(tagger, option, kind, tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:1])
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", tagger, "--experiment", "w", f"--models.{option}", "nope.txt"], tmp_path)
    assert f"{kind} file not found: nope.txt" in message and f"models.{option}" in message
    assert not (tmp_path / "attributes").exists()
