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
_PLAIN_URL = re.compile(
    r"(https?)://([A-Za-z0-9.-]+)(?::([1-9][0-9]{0,4}))?((?:/[A-Za-z0-9_~-]+(?:\.[A-Za-z0-9_~-]+)*)*)(/?)"
    r"(?:\?([A-Za-z0-9_.=&-]+))?(?:#[A-Za-z0-9_~-]*)?"
)
"""An http(s) URL of an ASCII host, maybe a port, a path of unreserved characters without dot segments, maybe a
query of plain ``key=value`` pairs and a fragment, no user: one whose canonical form the libraries reach by
steps simple enough to take here (see :func:`_plain_canonical`)."""
_HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_DEFAULT_PORTS = {"http": "80", "https": "443"}
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
    if (plain := _PLAIN_URL.fullmatch(cleaned)) and (canonical := _plain_canonical(plain)) is not None:
        return canonical  # most of a crawl, at a tenth of the libraries' cost
    canonicalize_url, url_normalize = _url_libraries()
    try:
        normalized = str(url_normalize(canonicalize_url(cleaned)))
    except (ValueError, IndexError, UnicodeError) as error:
        raise ValueError(f"{type(error).__name__}: {error}") from None
    scheme, separator, rest = normalized.partition("://")
    if not separator:
        raise ValueError(f"{normalized!r} has no scheme://")
    return _WWW_OR_TRAILING_SLASHES.sub("", rest)


def _plain_canonical(plain: re.Match) -> str | None:
    """What the libraries make of a plain URL: the host lower-cased, a default port dropped, the query's pairs
    sorted (w3lib), the fragment dropped; ``None`` where a case is not that simple (IDNA, odd pairs, big ports)."""
    scheme, host, port, path, slash, query = plain.groups()
    host = host.lower()
    if not _HOST.fullmatch(host) or "--" in host:
        return None
    if port is not None and int(port) > 65535:
        return None
    if port == _DEFAULT_PORTS[scheme]:
        port = None
    canonical = _WWW_OR_TRAILING_SLASHES.sub("", host) + (f":{port}" if port else "") + path
    if query is None:
        return canonical
    pairs = [pair.partition("=") for pair in query.split("&")]
    if any(not key or not equals or "=" in value for key, equals, value in pairs):
        return None
    return canonical + (slash or ("/" if not path else "")) + "?" + "&".join(f"{key}={value}" for key, _, value in sorted(pairs))


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
