"""dolma-sql warc: documents from the conformance WARC samples and small WARC files written here, resume and
byte-identical reruns, the time limit and rejects, and each kind of bad input (differential tests against
upstream are in test_warc_differential.py)."""

from __future__ import annotations

import contextlib
import datetime
import gzip
import json
import shutil
from pathlib import Path

import dateparser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import CONFORMANCE
from dolma_sql.cli import app
from dolma_sql.config import config_from
from dolma_sql.config.warc import WarcConfig
from dolma_sql.errors import ConfigError
from dolma_sql.runtime import SerialExecutor
from dolma_sql.warc import run
from dolma_sql.warc.fields import canonical_url, header_timestamp
from dolma_sql.warc.plan import documents_name
from warc_records import page, response, warcinfo, write_warc

SAMPLES = CONFORMANCE / "tests" / "data" / "warc"
ADDED = "2024-05-01T12:00:00.000Z"
KEYS = ["id", "text", "source", "created", "added", "version", "metadata", "attributes"]
METADATA = ["warc_url", "url", "warc_date", "warc_filename", "content_type", "uncompressed_offset"]


# --- running ------------------------------------------------------------------------------------------------

def convert(documents: list[str], destination: Path, **options):
    config = config_from({"documents": documents, "destination": [str(destination)], "source_name": "test", **options}, WarcConfig)
    return run(config, executor=SerialExecutor(), quiet=True)


def invoke(args: list[str], cwd: Path):
    with contextlib.chdir(cwd):
        return CliRunner().invoke(app, args)


def fail(args: list[str], cwd: Path) -> str:
    result = invoke(args, cwd)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return str(result.exception) + result.output


def lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


# --- the conformance samples ----------------------------------------------------------------------------------

def test_samples_give_upstreams_documents(tmp_path):
    """The samples' 37 pages (4 resource records lack a digest), with upstream's keys, ids, URLs and dates."""
    result = convert([str(SAMPLES / "*.warc.gz")], tmp_path / "out", added=ADDED)
    assert sorted(p.name for p in (tmp_path / "out").glob("*.jsonl.gz")) == ["sample-0000.jsonl.gz", "sample-0001.jsonl.gz"]
    docs = lines(tmp_path / "out" / "sample-0001.jsonl.gz")
    assert len(docs) == 15 and result.counters["documents"] == 37
    assert result.counters["records_response"] == 37 and result.counters["records_resource"] == 4 and result.counters["skipped_no_digest"] == 4
    first = docs[0]
    assert list(first) == KEYS and list(first["metadata"]) == METADATA
    assert first["id"] == "kzdszyz7bd64sayfkgmbkgjcgtoyu3gs" and first["source"] == "test" and first["version"] == "v0"
    assert first["created"] == "2024-04-25T16:27:48.000Z" and first["added"] == ADDED and first["attributes"] == {}
    assert first["metadata"] == {
        "warc_url": "<https://creativecommons.org/>", "url": "creativecommons.org", "warc_date": "2024-04-25T16:27:44.000Z",
        "warc_filename": "<urn:uuid:B53DD7FA-FBA9-4E70-9B1F-00C18EDBC808>", "content_type": "text/html", "uncompressed_offset": 1119,
    }
    assert first["text"].startswith("7d72 Homepage - Creative Commons\n\n")  # fastwarc leaves the chunked encoding, as upstream
    assert all(len(d["id"]) == 32 and d["id"] == d["id"].lower() for d in docs)


def test_pre_taggers_see_the_html_and_skip_pages_without_licence(tmp_path):
    """cc_re as a pre tagger reads metadata.html (without storing it); pre.skip keeps only pages with a licence link."""
    convert([str(SAMPLES / "sample-0001.warc.gz")], tmp_path / "out", added=ADDED,
            pre={"taggers": ["cc_re"], "skip": True}, post={"taggers": ["char_length_v1"]})
    docs = lines(tmp_path / "out" / "sample-0001.jsonl.gz")
    assert 0 < len(docs) < 15
    for doc in docs:
        assert "html" not in doc["metadata"]
        licences = [k for k in doc["attributes"] if k.startswith("cc_re__cc_re__cc_")]
        assert licences and all(span[:2] == [0, 0] for k in licences for span in doc["attributes"][k])  # pre taggers see no text
        assert doc["attributes"]["char_length_v1__char_length_v1__length"] == [[0, len(doc["text"]), float(len(doc["text"]))]]


def test_store_html_in_metadata_keeps_it_after_the_url(tmp_path):
    convert([str(SAMPLES / "sample-0000.warc.gz")], tmp_path / "out", added=ADDED, store_html_in_metadata=True)
    doc = lines(tmp_path / "out" / "sample-0000.jsonl.gz")[0]
    assert list(doc["metadata"]) == METADATA[:2] + ["html"] + METADATA[2:]
    assert doc["metadata"]["html"].lstrip().lower().startswith(("<!doctype", "<html", "7d"))


# --- determinism, resume, destinations --------------------------------------------------------------------------

def test_rerun_is_byte_identical_and_resumes(tmp_path):
    """added is recorded: --ignore_existing rewrites the same bytes; a plain rerun keeps the finished files."""
    out = tmp_path / "out"
    first = convert([str(SAMPLES / "*.warc.gz")], out)
    before = {p.name: gzip.decompress(p.read_bytes()) for p in out.glob("*.jsonl.gz")}
    again = convert([str(SAMPLES / "*.warc.gz")], out)
    assert again.counters.get("units_skipped") == 2 and again.added == first.added
    redone = convert([str(SAMPLES / "*.warc.gz")], out, ignore_existing=True)
    assert redone.counters["documents"] == 37 and redone.added == first.added
    assert {p.name: gzip.decompress(p.read_bytes()) for p in out.glob("*.jsonl.gz")} == before
    other = convert([str(SAMPLES / "*.warc.gz")], out, added=ADDED)  # another added: other options, files redone
    assert other.counters["documents"] == 37 and lines(out / "sample-0000.jsonl.gz")[0]["added"] == ADDED


def test_one_destination_per_documents_entry_and_nested_names(tmp_path):
    write_warc(tmp_path / "a" / "x" / "one.warc.gz", [warcinfo(), response("https://www.example.com/a/", page("One"))])
    write_warc(tmp_path / "b" / "two.arc.warc.gz", [response("http://example.org/b", page("Two"))])
    config = config_from({"documents": [str(tmp_path / "a" / "**" / "*.warc.gz"), str(tmp_path / "b" / "*.gz")],
                          "destination": [str(tmp_path / "outa"), str(tmp_path / "outb")], "source_name": "s"}, WarcConfig)
    run(config, executor=SerialExecutor(), quiet=True)
    assert lines(tmp_path / "outa" / "one.jsonl.gz")[0]["metadata"]["url"] == "example.com/a"
    assert lines(tmp_path / "outb" / "two.arc.jsonl.gz")[0]["metadata"]["url"] == "example.org/b"


def test_documents_name_follows_upstream():
    assert documents_name("CC-MAIN-1.warc.gz") == "CC-MAIN-1.jsonl.gz"
    assert documents_name("a/b/x.warc") == "a/b/x.jsonl.gz"
    assert documents_name("x.part.warc.gz") == "x.part.jsonl.gz"


# --- fields -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("uri, expected", [
    ("<https://www.Example.com/a/b/>", "example.com/a/b"),
    ("http://www2.example.com:80/x?b=2&a=1#frag", "example.com/x?a=1&b=2"),
    ("'https://example.com/ü path'", "example.com/%C3%BC%20path"),
])
def test_canonical_url(uri, expected):
    assert canonical_url(uri) == expected


def library_url(uri: str) -> str:
    """upstream's canonicalisation, step by step with its libraries."""
    import re

    from url_normalize import url_normalize
    from w3lib.url import canonicalize_url

    cleaned = re.sub(r"(^['\"<]+)|([/'\">]+$)", "", uri)
    return re.sub(r"(^(www\d*\.))|(/+$)", "", str(url_normalize(canonicalize_url(cleaned))).split("://", 1)[1], flags=re.IGNORECASE)


LABEL = st.text("abcxyz019-", min_size=1, max_size=8) | st.sampled_from(["www", "www2", "WWW", "Shop", "xn--bcher-kva", "a--b"])
SEGMENT = st.text("abXY09_~-.%é", max_size=6) | st.sampled_from([".", "..", "", "a.b", "index.html"])


PORT = st.sampled_from(["", "", ":80", ":443", ":8080", ":0", ":080", ":65535", ":99999"])
QUERY = st.sampled_from(["", "?", "?a=1", "?b=2&a=1", "?a=&b=1", "?a", "?a-b=1&a=2", "?a=2&a=1", "?x=1.5", "?a=1&&b=2", "?a==1", "?=1",
                         "?q=A_b-9"]) | st.lists(st.text("ab=&.-_9", max_size=4), min_size=1, max_size=3).map(lambda pairs: "?" + "&".join(pairs))


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(["http", "https", "HTTP"]), st.lists(LABEL, min_size=1, max_size=4), PORT, st.lists(SEGMENT, max_size=4),
       st.sampled_from(["", "/", "#top", ":8080", "//"]), QUERY, st.sampled_from(["", "#top", "#", "#a~b"]), st.sampled_from(["", "<", "'"]))
def test_canonical_url_is_the_libraries(scheme, labels, port, segments, tail, query, fragment, quote):
    """The plain-URL shortcut gives what w3lib and url-normalize give (generated URLs, plain ones and near misses)."""
    uri = (quote + f"{scheme}://{'.'.join(labels)}{port}" + "".join("/" + segment for segment in segments) + tail + query + fragment
           + {"<": ">"}.get(quote, quote))
    try:
        expected = library_url(uri)
    except (ValueError, IndexError, UnicodeError):
        with pytest.raises(ValueError):
            canonical_url(uri)
        return
    assert canonical_url(uri) == expected


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=datetime.datetime(1970, 1, 1), max_value=datetime.datetime(2100, 1, 1)), st.sampled_from(["http", "warc"]))
def test_header_dates_read_as_dateparser_reads_them(moment, form):
    """The strptime fast path gives what upstream's dateparser call gives."""
    text = moment.strftime("%a, %d %b %Y %H:%M:%S GMT") if form == "http" else moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    parsed = dateparser.parse(date_string=text, date_formats=["%a, %d %b %Y %H:%M:%S %Z", "%Y-%m-%dT%H:%M:%SZ"])
    assert header_timestamp(text, ADDED) == parsed.strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z"


def test_unreadable_or_missing_dates_fall_back_to_added():
    assert header_timestamp(None, ADDED) == ADDED and header_timestamp("not a date", ADDED) == ADDED
    assert header_timestamp("Thursday, 25-Apr-24 16:27:48 GMT", ADDED) == "2024-04-25T16:27:48.000Z"



@pytest.mark.parametrize("text", [
    *(f"Sat, {day} {month} {year} 10:00:00 GMT" for day in (29, 30, 31) for month in ("Feb", "Apr", "Jun", "Sep", "Nov") for year in (2023, 2024)),
    "2024-02-30T10:00:00Z", "2023-02-29T23:59:59Z", "2024-04-31T00:00:00Z",
    # the same forms with other impossible fields: dateparser itself decides (it reads some of them)
    "Mon, 00 Jan 2024 10:00:00 GMT", "Mon, 15 Apr 2024 24:00:00 GMT", "2024-13-01T10:00:00Z", "2024-00-10T10:00:00Z",
])
def test_impossible_dates_read_as_dateparser_reads_them(text):
    """A day past its month's end is no date without asking dateparser (which concludes the same, slowly)."""
    parsed = dateparser.parse(date_string=text, date_formats=["%a, %d %b %Y %H:%M:%S %Z", "%Y-%m-%dT%H:%M:%SZ"])
    assert header_timestamp(text, ADDED) == (parsed.strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z" if parsed else ADDED)


# --- generated records: charsets, skips, rejects, the time limit ------------------------------------------------

def test_charsets_skips_and_the_report(tmp_path):
    records = [
        warcinfo(),
        response("https://example.com/latin", "<html><body><p>Café crème brûlée à la française, très bien.</p></body></html>".encode("latin-1"), charset="iso-8859-1"),
        response("https://example.com/wrong", "<html><body><p>Ελληνικά κείμενα εδώ και εκεί, πολλές λέξεις.</p></body></html>".encode("utf-8"), charset="x-unknown"),
        response("https://example.com/nodigest", page("No digest"), digest=False),
        response("https://example.com/empty", b"   ", charset="utf-8"),
        response("https://example.com/nodate", page("No date"), date=None),
        response("dns:example.com", page("Dns")),  # no scheme://: upstream's canonicalisation fails the whole file
    ]
    write_warc(tmp_path / "in" / "mixed.warc.gz", records)
    result = convert([str(tmp_path / "in" / "*.warc.gz")], tmp_path / "out", added=ADDED, rejects=str(tmp_path / "rejects"))
    docs = {d["metadata"]["url"]: d for d in lines(tmp_path / "out" / "mixed.jsonl.gz")}
    assert sorted(docs) == ["example.com/latin", "example.com/nodate", "example.com/wrong"]
    assert "Café crème" in docs["example.com/latin"]["text"]
    assert "Ελληνικά" in docs["example.com/wrong"]["text"]  # an unknown charset label: detected instead
    assert docs["example.com/nodate"]["created"] == ADDED and docs["example.com/latin"]["created"] == "2024-05-01T10:00:00.000Z"
    assert docs["example.com/latin"]["metadata"]["warc_date"] == "2024-05-01T09:00:00.000Z"
    counters = result.counters
    assert (counters["records_warcinfo"], counters["records_response"]) == (1, 6)
    assert (counters["skipped_no_digest"], counters["skipped_empty"], counters["skipped_bad_target_uri"], counters["documents"]) == (1, 1, 1, 3)
    rejected = lines(tmp_path / "rejects" / "mixed.rejects.jsonl.gz")
    assert [(r["reason"], r["target_uri"]) for r in rejected] == [("bad_target_uri", "dns:example.com")]
    assert counters["html_bytes"] > counters["text_bytes"] > 0


@pytest.mark.parametrize("body, declared", [
    ("<p>Café, naïve façade</p>", None),
    ("<p>Café, naïve façade</p>", "utf-8"),
    ("<p>Café, naïve façade</p>", "windows-1252"),  # UTF-8 bytes declared otherwise in a meta tag: the detector follows the tag
    ("<p>plain ascii words</p>", "windows-1252"),
    ("\ufeff<p>Café with a byte-order mark</p>", None),
])
def test_pages_without_http_charset_decode_as_the_detector_says(body, declared):
    """The UTF-8 shortcut gives what upstream's charset-normalizer call gives."""
    from charset_normalizer import detect

    from dolma_sql.warc.records import decode

    meta = f'<meta charset="{declared}">' if declared else ""
    content = f"<html><head>{meta}<title>t</title></head><body>{body * 20}</body></html>".encode()
    assert decode(content, None) == (content.decode(detect(content)["encoding"]).strip(), "")


def test_valid_utf8_that_the_detector_misreads_is_decoded_as_utf8():
    """Upstream defect (docs/differences.md): on letter soup the detector picks another charset (CP949 here) and
    upstream writes mojibake; the page is valid UTF-8 and declares nothing else, so dolma-sql reads it as UTF-8."""
    from charset_normalizer import detect

    from dolma_sql.warc.records import decode

    content = "<html><body><p>äñüèèàüäèàüñüççèü çöığ</p></body></html>".encode()
    assert detect(content)["encoding"].lower() != "utf-8", "the detector's misreading this test is about"
    assert decode(content, None) == (content.decode("utf-8"), "")


def test_a_page_past_the_time_limit_is_rejected_with_its_offset(tmp_path):
    """A page no extractor handles in a millisecond (megabytes of nesting): killed, counted, written to the rejects file;
    the pages after it are still extracted by a fresh extraction process."""
    huge = ("<div>" * 20000 + "deep " * 200000 + "</div>" * 20000).encode()
    records = [response("https://example.com/huge", b"<html><body>" + huge + b"</body></html>"), response("https://example.com/after", page("After"))]
    write_warc(tmp_path / "in" / "slow.warc.gz", records)
    result = convert([str(tmp_path / "in" / "slow.warc.gz")], tmp_path / "out", time_limit=0.001, rejects=str(tmp_path / "rejects"))
    assert result.counters["skipped_timeout"] >= 1
    rejected = lines(tmp_path / "rejects" / "slow.rejects.jsonl.gz")
    assert rejected[0]["reason"] == "timeout" and rejected[0]["uncompressed_offset"] == 0
    assert rejected[0]["target_uri"] == "https://example.com/huge" and rejected[0]["warc"].endswith("slow.warc.gz")
    assert result.counters["documents"] + result.counters["skipped_timeout"] == 2


def test_without_a_limit_extraction_runs_in_the_worker(tmp_path):
    result = convert([str(SAMPLES / "sample-0001.warc.gz")], tmp_path / "out", time_limit=0, added=ADDED)
    bounded = convert([str(SAMPLES / "sample-0001.warc.gz")], tmp_path / "bounded", added=ADDED)
    assert result.counters["documents"] == 15
    assert (tmp_path / "out" / "sample-0001.jsonl.gz").read_bytes() == (tmp_path / "bounded" / "sample-0001.jsonl.gz").read_bytes()


# --- bad input ------------------------------------------------------------------------------------------------------

def test_truncated_warc_names_the_file_and_where_it_stops(tmp_path):
    path = write_warc(tmp_path / "cut.warc.gz", [warcinfo(), response("https://example.com/a", page("A", 200))])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 500])
    message = fail(["warc", "--documents", "cut.warc.gz", "--destination", "out", "--source_name", "s"], tmp_path)
    assert "cut.warc.gz" in message and "truncated" in message and f"had read {len(data) - 500} bytes" in message
    assert not list((tmp_path / "out").glob("*.jsonl.gz"))  # nothing half-written


def test_corrupt_warc_names_the_file(tmp_path):
    path = write_warc(tmp_path / "bad.warc.gz", [warcinfo()] + [response(f"https://example.com/{i}", page(str(i), 50)) for i in range(5)])
    data = bytearray(path.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    (tmp_path / "junk.warc.gz").write_bytes(b"this is not a warc file at all\n" * 10)
    message = fail(["warc", "--documents", "*.warc.gz", "--destination", "out", "--source_name", "s"], tmp_path)
    assert "corrupt" in message and ("bad.warc.gz" in message or "junk.warc.gz" in message)
    assert not list((tmp_path / "out").glob("*.jsonl.gz"))


def test_warc_without_a_usable_record_warns_and_writes_an_empty_file(tmp_path):
    write_warc(tmp_path / "none.warc.gz", [warcinfo(), response("https://example.com/x", page("X"), digest=False)])
    result = invoke(["warc", "--documents", "none.warc.gz", "--destination", "out", "--source_name", "s"], tmp_path)
    assert result.exit_code == 0, result.output
    assert "no usable record" in result.output and "no_digest 1" in result.output
    assert lines(tmp_path / "out" / "none.jsonl.gz") == []


@pytest.mark.parametrize("flags, expected", [
    (["--linearizer", "resiliparsee"], "did you mean resiliparse"),
    (["--linearizer", "boilerpipe"], "use one of resiliparse, trafilatura"),
    (["--pre.taggers", "cc_ree"], "did you mean cc_re"),
    (["--post.taggers", "char_length_v2"], "char_length_v1"),
])
def test_unknown_linearizer_or_tagger_suggests_names(tmp_path, flags, expected):
    shutil.copy(SAMPLES / "sample-0001.warc.gz", tmp_path)
    message = fail(["warc", "--documents", "*.warc.gz", "--destination", "out", "--source_name", "s", *flags], tmp_path)
    assert expected in message
    assert not (tmp_path / "out").exists()


def test_config_errors():
    with pytest.raises(ConfigError, match="source_name"):
        config_from({"documents": ["x"], "destination": ["y"]}, WarcConfig)
    with pytest.raises(ConfigError, match="2 destinations for 3"):
        config_from({"documents": ["a", "b", "c"], "destination": ["x", "y"], "source_name": "s"}, WarcConfig)
    with pytest.raises(ConfigError, match="added"):
        config_from({"documents": ["x"], "destination": ["y"], "source_name": "s", "added": "yesterday"}, WarcConfig)


def test_an_unwritable_rejects_folder_is_named_as_rejects(tmp_path):
    """Checked before any work, as the destination is (under a regular file: root ignores permissions)."""
    shutil.copy(SAMPLES / "sample-0001.warc.gz", tmp_path)
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ConfigError) as raised:
        convert([str(tmp_path / "sample-0001.warc.gz")], tmp_path / "out", rejects=str(tmp_path / "file" / "rejects"))
    assert raised.value.path == "rejects" and "not writable" in raised.value.message
    assert not (tmp_path / "out").exists()


def test_existing_destination_resumes_and_the_cli_reports(tmp_path):
    shutil.copy(SAMPLES / "sample-0001.warc.gz", tmp_path)
    args = ["warc", "--documents", "sample-0001.warc.gz", "--destination", "out", "--source_name", "s", "--added", ADDED]
    first = invoke(args, tmp_path)
    assert first.exit_code == 0, first.output
    assert "15 documents written" in first.output and "2 records skipped: no_digest 2" in first.output
    assert "pages/s" in first.output
    second = invoke(args, tmp_path)
    assert second.exit_code == 0 and "1 files already converted were kept" in second.output


def test_a_page_that_kills_the_extraction_process_is_rejected_and_the_rest_extracted():
    """The extraction process killed while on a page (as a crash in the library would): that page is
    rejected as crashed, a new process extracts the others."""
    import threading

    import psutil

    from dolma_sql.warc.extraction import BoundedExtractor, Rejected

    slow = "<html><body>" + "<div>" * 3000 + "word " * 300000 + "</div>" * 3000 + "</body></html>"
    bounded = BoundedExtractor("resiliparse", time_limit=3600)

    finished = threading.Event()
    others = {p.pid for p in psutil.Process().children()}  # extraction processes of earlier tests

    def kill_when_busy() -> None:
        while not finished.is_set():
            servers = [p for p in psutil.Process().children() if p.pid not in others and "extraction_server" in " ".join(p.cmdline())]
            if servers and sum(servers[0].cpu_times()[:2]) > 2.0:  # past its start-up, inside the slow page
                servers[0].kill()
                return
            finished.wait(0.05)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    try:
        results = bounded.extract([slow, page("After").decode()])
    finally:
        finished.set()
        killer.join()
        bounded.close()
    assert isinstance(results[0], Rejected) and results[0].reason == "crashed"
    assert "After paragraph 0" in results[1]


def test_a_record_cut_short_in_an_uncompressed_warc_is_rejected(tmp_path):
    """An uncompressed WARC whose last record ends before its Content-Length: that record is rejected as truncated
    (with its offset), the records before it are documents."""
    records = [warcinfo(), response("https://example.com/whole", page("Whole")), response("https://example.com/cut", page("Cut", 40))]
    path = tmp_path / "in" / "plain.warc"
    path.parent.mkdir()
    data = b"".join(records)
    path.write_bytes(data[:-400])
    result = convert([str(path)], tmp_path / "out", rejects=str(tmp_path / "rejects"))
    assert [d["metadata"]["url"] for d in lines(tmp_path / "out" / "plain.jsonl.gz")] == ["example.com/whole"]
    rejected = lines(tmp_path / "rejects" / "plain.rejects.jsonl.gz")
    assert [(r["reason"], r["target_uri"], r["uncompressed_offset"]) for r in rejected] == [("truncated", "https://example.com/cut", len(records[0]) + len(records[1]))]
    assert result.counters["skipped_truncated"] == 1


def test_without_the_warc_extra_the_error_names_the_packages_and_the_extra(monkeypatch):
    """A plain `pip install dolma-sql` has no fastwarc: `warc` stops before any file with what to install."""
    import importlib.util

    from dolma_sql.warc.linearizers import require_linearizer

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None if name == "fastwarc" else found(name, *args))
    with pytest.raises(ConfigError) as raised:
        require_linearizer("resiliparse")
    assert "without fastwarc" in str(raised.value) and 'pip install ".[warc]"' in raised.value.hint
