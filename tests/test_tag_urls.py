"""URL/domain blocklist taggers against upstream's tagger code on the same local lists (easylist, a hosts file).

Upstream's list parser backtracks exponentially on easylist rules such as ``||domain/path`` (it never
finishes loading the full list), so the comparison uses easylist's ``||domain^`` rules; the full list
is loaded by dolma-sql alone, and the rewritten pattern is checked against upstream's on random lines.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
from pathlib import Path

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CONFORMANCE
from tag_helpers import read_rows, write_jsonl_gz
from test_tag_cli import fail, ok

HERE = Path(__file__).resolve().parent
EASYLIST = CONFORMANCE / "tests/data/urls/easylist.txt.gz"
HOSTS = """# a hosts file
0.0.0.0 ads.example.com
127.0.0.1 localhost
127.0.0.1 tracker.example.org
::1 ip6-localhost
10.1.2.3 intranet.example.net
not-an-ip blocked.example.io
plain-domain.test
https://www.full-url.test/some/path?q=1
||adblock.test^
"""


def documents() -> list[dict]:
    rng = random.Random(5)
    with gzip.open(EASYLIST, "rt", encoding="utf-8") as handle:
        listed = [line.strip()[2:].split("^")[0] for line in handle if line.startswith("||")]
    urls = [f"https://{d}/x?y=1" for d in rng.sample(listed, 40)] + [f"http://www.{d}" for d in rng.sample(listed, 20)]
    urls += ["https://ads.example.com/banner", "http://www.ads.example.com", "ads.example.com", "https://tracker.example.org:8080/",
             "http://intranet.example.net/a", "https://plain-domain.test", "https://www.full-url.test/some/path", "full-url.test/some/path",
             "https://adblock.test/x", "https://example.com", "", None, "not a url", "HTTPS://ADS.EXAMPLE.COM/UPPER", "http://10.1.2.3/"]
    docs = []
    for index, url in enumerate(urls):
        document = {"id": f"u{index}", "text": f"document {index}", "source": "web"}
        if url is not None:
            document["metadata"] = {"url": url, "n": index}
        docs.append(document)
    docs.append({"id": "no-metadata", "text": "x"})
    return docs


CASES = [("domain_blocklist_utp_v1", "easylist"), ("domain_blocklist_phishing_v1", "hosts"), ("link_blocklist_phishing_v1", "hosts"),
         ("blocklist_hosts_porn_v1", "both")]


@pytest.fixture(scope="session")
def lists(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("lists")
    (root / "hosts.txt").write_text(HOSTS)
    with gzip.open(EASYLIST, "rt", encoding="utf-8") as handle:
        rules = [line for line in handle if re.match(r"\|\|[a-z0-9._-]+\^", line)]
    with gzip.open(root / "easylist-domains.txt.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(rules)
    easylist = str(root / "easylist-domains.txt.gz")
    return {"easylist": easylist, "hosts": str(root / "hosts.txt"), "both": os.pathsep.join([easylist, str(root / "hosts.txt")])}


@pytest.fixture(scope="session")
def upstream_outputs(oracle, lists, tmp_path_factory) -> dict[str, list[dict]]:
    root = tmp_path_factory.mktemp("upstream-urls")
    source, target = root / "docs.json", root / "upstream.json"
    source.write_text(json.dumps(documents()))
    requests = [f"{tagger}={lists[name]}" for tagger, name in CASES]
    subprocess.run([str(oracle.parent / "python"), str(HERE / "upstream_tagger.py"), str(source), str(target), *requests],
                   check=True, capture_output=True, timeout=600)
    return json.loads(target.read_text())


@pytest.mark.oracle
@pytest.mark.parametrize("tagger,list_name", CASES)
def test_blocklist_taggers_equal_upstream(tagger, list_name, lists, upstream_outputs, tmp_path):
    docs = documents()
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", docs)
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", tagger, "--experiment", "u",
        "--models.url_blocklist", *lists[list_name].split(os.pathsep)], tmp_path)
    flagged = [bool(row["attributes"]) for row in read_rows(tmp_path / "attributes/u/d.jsonl.gz")]
    assert flagged == [bool(result) for result in upstream_outputs[tagger]]
    assert any(flagged) and not all(flagged)


def test_blocklist_tagger_without_a_list_says_what_to_pass(tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:2])
    assert "--models.url_blocklist" in fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "domain_blocklist_v1"], tmp_path)


@pytest.mark.parametrize("taggers,option", [
    (["blocklist_firebog_nsfw_v1", "blocklist_hosts_gambling_v1"], "url_blocklist"),
    (["domain_blocklist_v1", "oisd_small_abp_v1"], "url_blocklist"),
])
def test_two_taggers_of_one_list_option_are_refused_in_one_run(taggers, option, tmp_path):
    """Upstream gives each of these taggers its own list; a run has one ``--models.<option>``, which would tag the same
    documents under every name."""
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents()[:2])
    listed = tmp_path / "list.txt"
    listed.write_text("a.com\n")
    said = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", *taggers, f"--models.{option}", str(listed)], tmp_path)
    assert f"{', '.join(taggers)} would all read the one list of --models.{option}" in " ".join(said.split())
    assert not (tmp_path / "attributes").exists()


def test_www_prefix_removal_is_exact(lists, tmp_path):
    """Upstream's lstrip("www.") maps web.test and eb.test to the same host; here only the prefix goes."""
    (tmp_path / "list.txt").write_text("web.test\n")
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [
        {"id": "a", "text": "a", "metadata": {"url": "https://web.test/"}},
        {"id": "b", "text": "b", "metadata": {"url": "https://eb.test/"}},
        {"id": "c", "text": "c", "metadata": {"url": "https://www.web.test/"}},
    ])
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "domain_blocklist_v1", "--experiment", "w",
        "--models.url_blocklist", str(tmp_path / "list.txt")], tmp_path)
    assert [bool(r["attributes"]) for r in read_rows(tmp_path / "attributes/w/d.jsonl.gz")] == [True, False, True]


def test_full_easylist_loads_and_flags_listed_domains(tmp_path):
    from dolma_sql.udfs.url import load_blocklist

    entries = load_blocklist(str(EASYLIST), "domain")
    assert len(entries) > 40_000
    docs = documents()
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", docs)
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "domain_blocklist_v1", "--experiment", "e",
        "--models.url_blocklist", str(EASYLIST)], tmp_path)
    flagged = [bool(row["attributes"]) for row in read_rows(tmp_path / "attributes/e/d.jsonl.gz")]
    assert all(flagged[:60]) and not flagged[-1]  # the 60 URLs sampled from easylist's ||domain^ rules


UPSTREAM_HOST = r"(([a-z0-9\-_]+\.?){2,}|localhost|localdomain)"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab-_.^|/ 0:", max_size=14))
def test_rewritten_host_pattern_matches_like_upstreams(line):
    from dolma_sql.udfs import url

    for upstream, ours in [
        (re.compile(f"^{UPSTREAM_HOST}"), url._ONLY_URL),
        (re.compile(f"\\|+{UPSTREAM_HOST}\\^"), url._ADBLOCK),
        (re.compile(f"([0-9a-f\\.\\:]+)\\s+{UPSTREAM_HOST}"), url._IP_AND_URL),
    ]:
        want, got = upstream.match(line), ours.match(line)
        assert (want is None) == (got is None)
        if want:
            assert want.span() == got.span() and want.group(1) == got.group(1)
            if upstream.groups > 2:
                assert want.group(2) == got.group(2)


@pytest.mark.parametrize("url,expected", [
    ("not a url", ("not a url", None, None)),
    ("http://user@not a url:8080/x", ("not a url", 8080, "/x")),
    ("not-an-ip blocked.example.io", ("not-an-ip blocked.example.io", None, None)),
])
def test_hosts_with_spaces_split_as_upstreams_urllib3_does(url, expected):
    """urllib3 2.8 refuses these hosts; the split must not depend on the installed urllib3."""
    from dolma_sql.udfs.url import split_url

    assert split_url(url) == expected
