"""The fields a page's document gets from its record: canonical URL, payload id and dolma's timestamps.

Each is computed as upstream's ``dolma warc`` computes it, so the documents are the same; where
upstream falls back to the clock (no date, an unparseable one), the run's ``added`` time is used
instead, so that a rerun writes the same bytes.
"""

from __future__ import annotations

import datetime
import re
from functools import lru_cache

_QUOTES_AND_BRACKETS = re.compile(r"(^['\"<]+)|([/'\">]+$)")
_WWW_OR_TRAILING_SLASHES = re.compile(r"(^(www\d*\.))|(/+$)", re.IGNORECASE)
_HTTP_DATE = re.compile(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} (GMT|UTC)")
_DATE_FORMATS = ("%a, %d %b %Y %H:%M:%S %Z", "%Y-%m-%dT%H:%M:%SZ")
"""The formats upstream tries first (an HTTP ``Date`` and a ``WARC-Date``)."""


def canonical_url(target_uri: str) -> str:
    """``metadata.url``: the target URI without brackets or quotes, canonicalised (w3lib, then
    url-normalize), without its scheme, a leading ``www``/``wwwN.`` or trailing slashes.

    A ValueError when the libraries cannot read it or it has no ``scheme://`` (``dns:``, ``mailto:``).
    """
    canonicalize_url, url_normalize = _url_libraries()
    try:
        normalized = str(url_normalize(canonicalize_url(_QUOTES_AND_BRACKETS.sub("", target_uri))))
    except (ValueError, IndexError, UnicodeError) as error:
        raise ValueError(f"{type(error).__name__}: {error}") from None
    scheme, separator, rest = normalized.partition("://")
    if not separator:
        raise ValueError(f"{normalized!r} has no scheme://")
    return _WWW_OR_TRAILING_SLASHES.sub("", rest)


@lru_cache(maxsize=1)
def _url_libraries():
    """w3lib's and url-normalize's functions, the latter's host step memoised: its IDNA encoding is most of a
    URL's cost, and a crawl has many pages per host (the step is a pure function of the host)."""
    import importlib

    from w3lib.url import canonicalize_url

    steps = importlib.import_module("url_normalize.url_normalize")  # the module (the package exports a function of that name)

    if not hasattr(steps.normalize_host, "cache_info"):
        steps.normalize_host = lru_cache(maxsize=1 << 16)(steps.normalize_host)
    return canonicalize_url, steps.url_normalize


def payload_id(digest: str) -> str | None:
    """The document id: the payload digest's value, lowercased (``None`` when it has no ``algorithm:`` prefix)."""
    parts = digest.split(":")
    return parts[1].lower() if len(parts) > 1 else None


def dolma_timestamp(moment: datetime.datetime) -> str:
    """dolma's timestamp text: wall-clock time to the millisecond, then ``Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z"


@lru_cache(maxsize=4096)
def header_timestamp(text: str | None, fallback: str) -> str:
    """The timestamp of an HTTP ``Date`` or ``WARC-Date`` header as upstream reads it, ``fallback`` when unreadable.

    The common RFC 1123 and WARC forms are read with ``strptime`` (the formats upstream hands
    dateparser first); any other text goes to dateparser, as upstream does.
    """
    if not text:
        return fallback
    try:
        if _HTTP_DATE.fullmatch(text):
            return dolma_timestamp(datetime.datetime.strptime(text[:-4], _DATE_FORMATS[0][:-3]))
        return dolma_timestamp(datetime.datetime.strptime(text, _DATE_FORMATS[1]))
    except ValueError:  # another form, or no such day (31 Feb): dateparser's own parsing decides, as upstream
        pass
    import dateparser

    parsed = dateparser.parse(date_string=text, date_formats=list(_DATE_FORMATS))
    return dolma_timestamp(parsed) if parsed is not None else fallback
