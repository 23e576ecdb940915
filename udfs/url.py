"""URL and domain blocklist taggers (dolma ``taggers/url.py``): ``url`` = 1.0 when ``metadata.url`` is listed.

Lists are local files passed with ``--models.url_blocklist PATH...`` (plain or ``.gz``; upstream
downloads fixed snapshots). Lines are parsed as upstream parses them: hosts-file lines
(``0.0.0.0 example.com``), plain domains or URLs, and Adblock Plus ``||domain^`` rules; other
lines are skipped (see ``_URL`` for a fix of upstream's pattern). URLs come out of the metadata with one vectorized JSON-path scan; normalising
each URL (``urllib3.util.parse_url``) is per document.

Domain taggers compare hosts with and without ``www.``. Upstream removes the prefix with
``str.lstrip("www.")``, which strips any leading ``w`` and ``.`` characters (``web.de`` becomes
``eb.de`` and collides with it); dolma-sql removes exactly the ``www.`` prefix.
"""

from __future__ import annotations

import gzip
import os
import re
import socket
from collections.abc import Iterator
from functools import cache
from urllib.parse import urlsplit

import numpy as np

from dolma_sql.errors import ConfigError
from dolma_sql.tagger.registry import reads_list_files
from dolma_sql.tagging import Spans, TagBatch, tagger

# Upstream's host pattern is (([a-z0-9\-_]+\.?){2,}|localhost|localdomain): its nested quantifiers backtrack
# exponentially on an Adblock rule such as "||some-long-domain.example/path" (loading easylist never ends).
# This is the same language written unambiguously (word characters, single dots between or after them, at
# least two word characters), so it matches the same text in linear time.
_URL = r"([a-z0-9\-_](?:\.?[a-z0-9\-_])+\.?|localhost|localdomain)"
_ONLY_URL = re.compile(f"^{_URL}")
_ADBLOCK = re.compile(f"\\|+{_URL}\\^")
_IP_AND_URL = re.compile(f"([0-9a-f\\.\\:]+)\\s+{_URL}")
_LOCAL_IP = re.compile(r"^(127\.0\.0\.1|0\.0\.0\.0|::1)")


def _is_ip(text: str) -> bool:
    for family in (socket.AF_INET6, socket.AF_INET):
        try:
            socket.inet_pton(family, text)
            return True
        except OSError:
            continue
    return False


def split_url(url: str) -> tuple[str | None, int | None, str | None]:
    """(host, port, path) of ``url`` as urllib3 1.26 (upstream's) splits it.

    urllib3 2.8 refuses hosts containing spaces (``not a url``), which 1.26 returns verbatim; the
    same split is done here by the standard library so results don't depend on the urllib3 version
    (except that a path is not percent-encoded on that fallback).
    """
    import urllib3.util
    from urllib3.exceptions import LocationParseError

    try:
        parsed = urllib3.util.parse_url(url)
        return parsed.host, parsed.port, parsed.path
    except LocationParseError:
        parts = urlsplit(url if "://" in url else f"//{url}")
        host, _, port = parts.netloc.rpartition("@")[2].partition(":")
        return host or None, int(port) if port.isdigit() else None, parts.path or None


def clean_url(url: str | None) -> Iterator[str]:
    """``host[:port]/path`` without scheme, query or trailing slash, lowercased."""
    if url is None or not url.strip():
        return
    host, port, path = split_url(url)
    yield f"{host}{f':{port}' if port else ''}{path or ''}".rstrip("/").lower()


def clean_domain(url: str | None) -> Iterator[str]:
    """The host of ``url`` with and without ``www.``."""
    for cleaned in clean_url(url):
        host = split_url(cleaned)[0]
        if not host:
            return
        host = host.removeprefix("www.")
        yield host
        yield f"www.{host}"


def parse_list_line(line: str, clean, *, strict: bool = False) -> Iterator[str]:
    """Entries of one blocklist line (upstream's ``BaseUrlTagger.parse_line``).

    Unparseable lines yield nothing, or raise ``ValueError`` when ``strict`` (where upstream raises).
    """
    line = line.strip().lower()
    if not line or line[0] in "#;!":
        return
    if match := _IP_AND_URL.match(line):
        address, url = match.group(1), match.group(2)
        if not _is_ip(address):
            if strict:
                raise ValueError(f"invalid IP address: {address}")
            return
        if not _LOCAL_IP.match(address):
            yield address
        if url not in ("localhost", "localdomain"):
            yield from clean(url)
    elif _ONLY_URL.match(line):
        yield from clean(line)
    elif match := _ADBLOCK.match(line):
        yield match.group(1)
    elif strict:
        raise ValueError(f"invalid line: {line}")


def open_list(path: str):
    return gzip.open(path, "rt", encoding="utf-8", errors="replace") if path.endswith(".gz") else open(path, encoding="utf-8", errors="replace")


@cache
def load_blocklist(paths: str, mode: str) -> frozenset[str]:
    """Every entry of the ``os.pathsep``-joined list files; ``mode`` is ``domain``, ``url`` or ``raw`` (one entry per line)."""
    clean = clean_domain if mode == "domain" else clean_url
    entries: set[str] = set()
    for path in paths.split(os.pathsep):
        with open_list(path) as handle:
            for line in handle:
                if mode == "raw":
                    if not (line := line.strip().lower()).startswith("#"):
                        entries.add(line)
                else:
                    entries.update(parse_list_line(line, clean))
    return frozenset(entries)


def require_list_files(options: dict, option: str, *, needed_by: str, kind: str, hint: str) -> str:
    """The ``os.pathsep``-joined list files of ``models.<option>``, checked at load time: given, and each a file."""
    paths = options.get(option)
    if not paths:
        raise ConfigError(f"{needed_by} need list files", path=f"models.{option}", hint=hint)
    for path in paths.split(os.pathsep):
        if not os.path.isfile(path):
            raise ConfigError(f"{kind} file not found: {path}", path=f"models.{option}")
    return paths


@reads_list_files("url_blocklist")
def require_blocklist(options: dict) -> None:
    require_list_files(options, "url_blocklist", needed_by="URL/domain blocklist taggers", kind="blocklist",
                       hint="pass --models.url_blocklist PATH... (hosts, plain-domain or Adblock Plus ||domain^ lists, plain or .gz)")
    try:
        import urllib3  # noqa: F401
    except ImportError:
        raise ConfigError("URL taggers need urllib3", path="taggers", hint="pip install urllib3") from None


def _urls(batch: TagBatch) -> list[str | None]:
    return batch.metadata_field("url").to_list()


def _tag(batch: TagBatch, mode: str) -> dict[str, Spans]:
    blocklist = load_blocklist(batch.options["url_blocklist"], mode)
    clean = clean_domain if mode == "domain" else clean_url
    listed = np.array([any(c in blocklist for c in clean(url or "")) for url in _urls(batch)], dtype=bool)
    return {"url": Spans.document(batch.lengths, 1.0, where=listed)}


URL_TAGGER = {"types": ["url"], "needs": ["metadata"], "requires": "urllib3", "check": require_blocklist, "vectorized": False}
DOMAIN_LISTS = [
    "domain_blocklist_v1", "domain_blocklist_utp_v1", "domain_blocklist_phishing_v1",
    *(f"blocklist_project_{name}_v1" for name in ("nsfw", "social", "crime", "vice", "ads")),
    *(f"blocklist_firebog_{name}_v1" for name in ("ads", "crypto", "malicious", "nsfw", "social", "suspicious", "trackers")),
    *(f"blocklist_hosts_{name}_v1" for name in ("adware_malware", "fakenews", "gambling", "porn", "social")),
]


def _domain_tagger(batch: TagBatch):
    """The host (with and without ``www.``) of ``metadata.url`` is on the list."""
    return _tag(batch, "domain")


for _name in DOMAIN_LISTS:  # upstream's named lists differ only in the files they download
    tagger(_name, **URL_TAGGER)(_domain_tagger)


@tagger("link_blocklist_v1", **URL_TAGGER)
def link_blocklist_v1(batch: TagBatch):
    """``host[:port]/path`` of ``metadata.url`` is on the list (parsed like the domain lists)."""
    return _tag(batch, "url")


@tagger("link_blocklist_phishing_v1", **URL_TAGGER)
def link_blocklist_phishing_v1(batch: TagBatch):
    """``host[:port]/path`` of ``metadata.url`` equals a (lowercased) line of the list."""
    return _tag(batch, "raw")
