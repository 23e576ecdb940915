"""The fields a page's document gets from its record: canonical URL, payload id and dolma's timestamps.

Each is computed as upstream's ``dolma warc`` computes it, so the documents are the same; where
upstream falls back to the clock (no date, an unparseable one), the run's ``added`` time is used
instead, so that a rerun writes the same bytes.
"""

from __future__ import annotations

import calendar
import datetime
import re
from functools import lru_cache

_QUOTES_AND_BRACKETS = re.compile(r"(^['\"<]+)|([/'\">]+$)")
_WWW_OR_TRAILING_SLASHES = re.compile(r"(^(www\d*\.))|(/+$)", re.IGNORECASE)
_PLAIN_URL = re.compile(r"https?://((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)((?:/[A-Za-z0-9_~-]+(?:\.[A-Za-z0-9_~-]+)*)*)/?")
"""An http(s) URL of a lowercase ASCII host and a path of unreserved characters without dot segments, query,
fragment, port or user: one the libraries leave as it is (but for the scheme, ``www`` and trailing slashes)."""
_HTTP_DATE = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d\d):(\d\d):(\d\d) (?:GMT|UTC)")
_WARC_DATE = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z")
_MONTHS = {name: number for number, name in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_DATE_FORMATS = ("%a, %d %b %Y %H:%M:%S %Z", "%Y-%m-%dT%H:%M:%SZ")
"""The formats upstream tries first (an HTTP ``Date`` and a ``WARC-Date``)."""


def canonical_url(target_uri: str) -> str:
    """``metadata.url``: the target URI without brackets or quotes, canonicalised (w3lib, then
    url-normalize), without its scheme, a leading ``www``/``wwwN.`` or trailing slashes.

    A ValueError when the libraries cannot read it or it has no ``scheme://`` (``dns:``, ``mailto:``).
    """
    cleaned = _QUOTES_AND_BRACKETS.sub("", target_uri)
    if (plain := _PLAIN_URL.fullmatch(cleaned)) and "--" not in plain[1]:  # most of a crawl, at a tenth of the libraries' cost
        return _WWW_OR_TRAILING_SLASHES.sub("", plain[1]) + plain[2]
    canonicalize_url, url_normalize = _url_libraries()
    try:
        normalized = str(url_normalize(canonicalize_url(cleaned)))
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
def _past_month_end(year: int, month: int, day: int, hour: int, minute: int, second: int) -> bool:
    """A date whose day is past its month's last (29 to 31), all else valid."""
    if not (1 <= month <= 12 and 29 <= day <= 31 and hour < 24 and minute < 60 and second < 60 and year >= 1):
        return False
    return day > calendar.monthrange(year, month)[1]


@lru_cache(maxsize=4096)
def header_timestamp(text: str | None, fallback: str) -> str:
    """The timestamp of an HTTP ``Date`` or ``WARC-Date`` header as upstream reads it, ``fallback`` when unreadable.

    The common RFC 1123 and WARC forms (the formats upstream hands dateparser first, which reads them
    with ``strptime``) are read here (strptime costs more than the rest of a page's fields), and such a
    form with a day past its month's end is no date (what dateparser concludes, after loading every
    language it knows: seconds of CPU per process); any other text goes to dateparser, as upstream does.
    """
    if not text:
        return fallback
    if (match := _HTTP_DATE.fullmatch(text)) is not None:
        _, day, month, year, *clock = match.groups()
        fields = (int(year), _MONTHS[month], int(day), *map(int, clock))
    elif (match := _WARC_DATE.fullmatch(text)) is not None:
        fields = tuple(map(int, match.groups()))
    else:
        fields = None
    if fields is not None:
        try:
            return dolma_timestamp(datetime.datetime(*fields))
        except ValueError:
            if _past_month_end(*fields):  # 30 February: dateparser finds no date either, after a costly search
                return fallback
    import dateparser

    parsed = dateparser.parse(date_string=text, date_formats=list(_DATE_FORMATS))
    return dolma_timestamp(parsed) if parsed is not None else fallback
