"""Deterministic Common Crawl-style WARC files made from generated HTML pages, and how two
conversions of them to documents are compared.

Used by the warc differential tests and by ``bench/warc.py`` (one generator and one comparison, so
the bench measures the pages the tests prove equal). Records are written by hand, one gzip member each like Common
Crawl's files, because the interesting cases are malformed ones no WARC writer produces: a
response without ``WARC-Payload-Digest``, a final record cut short, a charset that lies.

    python tests/warc_corpus.py OUT.warc.gz --records 1000 --seed 0
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an they you "
    "were her she there been one all we their has would when if so no will more can out them about what some time "
    "could these two may first then do any like my now over such our man me even most made after also did many off "
    "before must well back through years much where your way down should because each just those people how too "
    "little state good very make world still own see men work long get here between both life being under never day "
    "same another know while last might us great old year come since against go came right used take three garden "
    "river harbour council museum library festival recipe engine orbit protein village market bridge railway season"
).split()
# words with characters each legacy charset can encode (the page must round-trip through its charset)
ACCENTED = "café naïve résumé façade déjà señor Zürich Ærø crème brûlée Øre".split()
JAPANESE = "東京 大阪 日本語 文章 情報 技術 研究 開発 図書館 天気 料理 電車".split()
LICENCES = (
    '<a rel="license" href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>',
    '<a rel="license" href="http://creativecommons.org/licenses/by-nc-sa/3.0/deed.de">CC BY-NC-SA</a>',
    '<meta name="license" content="https://creativecommons.org/publicdomain/zero/1.0/">',
    '<a href="https://creativecommons.org/licenses/by-sa/2.5/legalcode.fr">licence</a>',
)
BARE_PAGES = {
    "nav-only": '<html><head><title>Menu</title></head><body><nav><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul></nav>'
                "<footer>&copy; 2024</footer></body></html>",
    "script-only": '<html><head><script>var x = 1;</script></head><body><script>document.write("hi")</script></body></html>',
    "whitespace-body": "<html><body>   \n\t  </body></html>",
    "no-markup": "just some plain words without any markup at all",
    "form-only": '<html><body><form><input name=q value="search"><button>Go</button></form></body></html>',
    "table-only": "<html><body><table><tr><td>1</td><td>2</td></tr></table></body></html>",
}
HOSTS = ("www.example.com", "news.example.org", "WWW2.Shop.example.net", "blog.example.co.uk", "example.com:80", "www.exämple.de")
DATE = "Tue, 23 Apr 2024 10:{:02d}:{:02d} GMT"


# ------------------------------------------------------------------------------ pages
def sentence(rng: random.Random, extra: tuple[str, ...] = ()) -> str:
    pool = WORDS + list(extra) * 3
    words = [rng.choice(pool) for _ in range(rng.randint(6, 22))]
    return " ".join(words).capitalize() + rng.choice(".....!?")


def paragraph(rng: random.Random, extra: tuple[str, ...] = ()) -> str:
    return " ".join(sentence(rng, extra) for _ in range(rng.randint(2, 7)))


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def html_page(rng: random.Random, title_index: int, *, extra: tuple[str, ...] = (), meta_charset: str | None = None,
              licence: bool = False, size: int = 1) -> str:
    """A page shaped like a news article or blog post: navigation, main text, lists, comments, footer.

    ``size`` multiplies the article (a large page); the boilerplate stays the same.
    """
    title = f"{sentence(rng, extra)[:-1]} #{title_index}"
    head = [f'<meta charset="{meta_charset}">' if meta_charset else "", f"<title>{escape(title)}</title>",
            '<meta name="viewport" content="width=device-width">',
            "<style>body{font-family:sans-serif} .ad{display:none}</style>",
            "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}</script>"]
    nav = "".join(f'<li><a href="/{w}">{w.title()}</a></li>' for w in rng.sample(WORDS, 6))
    body = [f'<header><nav class="menu"><ul>{nav}</ul></nav><form><input name="q"><button>Search</button></form></header>',
            '<main><article>', f"<h1>{escape(title)}</h1>", f'<p class="byline">By {rng.choice(WORDS).title()} '
            f"{rng.choice(WORDS).title()}</p>"]
    for _ in range(rng.randint(3, 9) * size):
        kind = rng.random()
        if kind < 0.6:
            body.append(f"<p>{escape(paragraph(rng, extra))}</p>")
        elif kind < 0.75:
            tag = rng.choice(("ul", "ol"))
            items = "".join(f"<li>{escape(sentence(rng, extra))}</li>" for _ in range(rng.randint(2, 6)))
            body.append(f"<h2>{escape(sentence(rng, extra)[:-1])}</h2><{tag}>{items}</{tag}>")
        elif kind < 0.85:
            rows = "".join(f"<tr><td>{rng.choice(WORDS)}</td><td>{rng.randint(1, 999)}</td></tr>" for _ in range(rng.randint(2, 5)))
            body.append(f"<table><tr><th>Name</th><th>Value</th></tr>{rows}</table>")
        elif kind < 0.92:
            body.append(f"<blockquote>{escape(sentence(rng, extra))}</blockquote><!-- {rng.choice(WORDS)} -->")
        else:
            body.append(f'<div class="ad"><a href="https://ads.example/{rng.randint(1, 99)}">Advertisement</a></div>')
    body.append("</article>")
    if rng.random() < 0.5:
        comments = "".join(f'<li class="comment"><b>{rng.choice(WORDS)}</b><p>{escape(sentence(rng, extra))}</p></li>'
                           for _ in range(rng.randint(1, 4)))
        body.append(f'<section id="comments"><h3>Comments</h3><ol>{comments}</ol></section>')
    body.append("</main>")
    links = " | ".join(f'<a href="/{w}">{w}</a>' for w in rng.sample(WORDS, 4))
    body.append(f'<footer><p>{links}</p><p>&copy; 2024 {rng.choice(WORDS).title()} Media</p>'
                f'{rng.choice(LICENCES) if licence else ""}</footer>')
    return f'<!DOCTYPE html>\n<html lang="en"><head>{"".join(head)}</head>\n<body>{"".join(body)}</body></html>\n'


def nested_page(depth: int, rng: random.Random) -> str:
    """Deeply nested markup with text at every level: costly for DOM-walking extractors."""
    opening = "".join(f'<div class="l{i}"><span>{rng.choice(WORDS)}</span>' for i in range(depth))
    return f"<!DOCTYPE html><html><head><title>nested</title></head><body>{opening}<p>{paragraph(rng)}</p>{'</div>' * depth}</body></html>\n"


# ------------------------------------------------------------------------------ records
@dataclass
class Record:
    """One WARC record before serialisation; ``headers`` keep their order."""

    warc_type: str
    headers: list[tuple[str, str]]
    block: bytes
    truncate_to: int | None = None  # bytes of the gzip member kept (a file cut short)


@dataclass
class Corpus:
    """What was written: the records in order, and which ones a converter should turn into documents."""

    path: Path
    records: list[Record] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)  # where each record's gzip member starts in the file
    html_responses: int = 0


def payload_digest(payload: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(payload).digest()).decode()


def record_id(rng: random.Random) -> str:
    return f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128), version=4)}>"


def warc_bytes(record: Record) -> bytes:
    lines = [b"WARC/1.0", f"WARC-Type: {record.warc_type}".encode()]
    lines += [f"{name}: {value}".encode() for name, value in record.headers]
    lines.append(f"Content-Length: {len(record.block)}".encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + record.block + b"\r\n\r\n"


def http_response(body: bytes, content_type: str | None, date: str | None, extra: tuple[str, ...] = ()) -> bytes:
    headers = ["HTTP/1.1 200 OK", "Server: nginx"]
    if date:
        headers.append(f"Date: {date}")
    if content_type:
        headers.append(f"Content-Type: {content_type}")
    headers += [*extra, f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(headers) + "\r\n\r\n").encode("latin-1") + body


def response(rng: random.Random, uri: str, warc_date: str, body: bytes, content_type: str | None, *,
             date: str | None, digest: bool = True, wrap_uri: bool = False) -> Record:
    headers = [("WARC-Target-URI", f"<{uri}>" if wrap_uri else uri), ("WARC-Date", warc_date),
               ("WARC-Record-ID", record_id(rng)), ("Content-Type", "application/http; msgtype=response")]
    if digest:
        headers.append(("WARC-Payload-Digest", payload_digest(body)))
    return Record("response", headers, http_response(body, content_type, date))


def request(rng: random.Random, uri: str, warc_date: str) -> Record:
    host = uri.split("/")[2]
    block = f"GET /{uri.split('/', 3)[-1]} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: CCBot/2.0\r\n\r\n".encode()
    return Record("request", [("WARC-Target-URI", uri), ("WARC-Date", warc_date), ("WARC-Record-ID", record_id(rng)),
                              ("Content-Type", "application/http; msgtype=request")], block)


def warcinfo(rng: random.Random, filename: str) -> Record:
    block = b"software: dolma-sql tests/warc_corpus.py\r\nformat: WARC File Format 1.0\r\nisPartOf: CC-TEST\r\n"
    return Record("warcinfo", [("WARC-Date", "2024-04-23T10:00:00Z"), ("WARC-Filename", filename),
                               ("WARC-Record-ID", record_id(rng)), ("Content-Type", "application/warc-fields")], block)


def url_for(rng: random.Random, index: int) -> str:
    host = rng.choice(HOSTS)
    path = "/".join(rng.sample(WORDS, rng.randint(1, 3)))
    query = rng.choice(("", f"?utm_source=feed&id={index}", f"?b=2&a=1&id={index}", f"?q={rng.choice(WORDS)}#top"))
    slash = rng.choice(("", "/"))
    return f"{rng.choice(('http', 'https'))}://{host}/{path}-{index}{slash}{query}"


# the ordinary pages: (charset the body is encoded in, Content-Type header, <meta charset>, words)
PAGE_KINDS = (
    ("utf-8", "text/html; charset=utf-8", None, ACCENTED),
    ("utf-8", "text/html; charset=UTF-8", "utf-8", ()),
    ("utf-8", "text/html", None, ACCENTED),
    ("windows-1252", "text/html", "windows-1252", ACCENTED),
    ("windows-1252", "text/html; charset=windows-1252", None, ACCENTED),
    ("iso-8859-1", "text/html", None, ACCENTED),
    ("shift_jis", "text/html; charset=Shift_JIS", None, JAPANESE),
    ("shift_jis", "text/html", "shift_jis", JAPANESE),
    ("utf-8", "text/html; charset=utf-8", None, JAPANESE),
)


def ordinary_records(rng: random.Random, count: int, first_index: int = 0, charset_override: str | None = None) -> Iterator[tuple[Record, bool]]:
    """``count`` request/response pairs of realistic pages; yields (record, is an html response)."""
    for index in range(first_index, first_index + count):
        charset, content_type, meta, extra = PAGE_KINDS[index % len(PAGE_KINDS)]
        if charset_override is not None:  # "" declares none
            content_type = "text/html" + (f"; charset={charset_override}" if charset_override else "")
        uri = url_for(rng, index)
        warc_date = f"2024-04-23T10:{index // 60 % 60:02d}:{index % 60:02d}Z"
        page = html_page(rng, index, extra=tuple(extra), meta_charset=meta, licence=rng.random() < 0.2)
        yield request(rng, uri, warc_date), False
        yield response(rng, uri, warc_date, page.encode(charset), content_type,
                       date=DATE.format(index // 60 % 60, index % 60), wrap_uri=index % 7 == 3), True


def special_records(rng: random.Random, huge_size: int, nest_depth: int) -> Iterator[tuple[Record, bool]]:
    """The cases a converter must get right besides ordinary pages."""
    date, warc_date = DATE.format(59, 0), "2024-04-23T10:59:00Z"
    # a response without WARC-Payload-Digest (no id: dropped)
    yield response(rng, "https://example.com/no-digest", warc_date, html_page(rng, 9001).encode(), "text/html; charset=utf-8",
                   date=date, digest=False), False
    # binary payload declared as an image, and a plain-text response
    png = b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(2048))
    yield response(rng, "https://example.com/logo.png", warc_date, png, "image/png", date=date), False
    yield response(rng, "https://example.com/robots.txt", warc_date, b"User-agent: *\nDisallow: /private\n",
                   "text/plain", date=date), True
    # a charset that lies: windows-1252 bytes declared as utf-8
    yield response(rng, "https://example.com/lying-charset", warc_date, html_page(rng, 9002, extra=tuple(ACCENTED)).encode("windows-1252"),
                   "text/html; charset=utf-8", date=date), True
    # UTF-8 pages whose meta tag names another charset, with one non-ASCII word: charset detection
    # believes the tag (as browsers do)
    for name, meta, word in (("mislabelled-latin1", "iso-8859-1", "façade"), ("mislabelled-sjis", "shift_jis", "料理")):
        page = html_page(rng, 9010, meta_charset=meta).replace("<title>", f"<title>{word} ", 1).replace("<h1>", f"<h1>{word} ", 1)
        yield response(rng, f"https://example.com/{name}", warc_date, page.encode(), "text/html", date=date), True
    # a response without an HTTP Date (created comes from elsewhere)
    yield response(rng, "https://example.com/no-date", warc_date, html_page(rng, 9003).encode(), "text/html", date=None), True
    # an HTTP Date that is no date (February 30th)
    yield response(rng, "https://example.com/impossible-date", warc_date, html_page(rng, 9007).encode(), "text/html",
                   date="Fri, 30 Feb 2024 10:00:00 GMT"), True
    # a resource record (content type and date from the WARC headers)
    body = html_page(rng, 9004, licence=True).encode()
    yield Record("resource", [("WARC-Target-URI", "https://example.com/resource.html"), ("WARC-Date", warc_date),
                              ("WARC-Record-ID", record_id(rng)), ("Content-Type", "text/html; charset=utf-8"),
                              ("WARC-Payload-Digest", payload_digest(body))], body), True
    # pages with no main text: documents with an empty text (or a few words) and taggers on it
    for name, html in BARE_PAGES.items():
        yield response(rng, f"https://example.com/{name}", warc_date, html.encode(), "text/html; charset=utf-8", date=date), True
    # a metadata record (not converted)
    yield Record("metadata", [("WARC-Target-URI", "https://example.com/"), ("WARC-Date", warc_date),
                              ("WARC-Record-ID", record_id(rng)), ("Content-Type", "application/warc-fields")],
                 b"fetchTimeMs: 123\r\n"), False
    # an empty body
    yield response(rng, "https://example.com/empty", warc_date, b"", "text/html", date=date), False
    # pages that make extraction slow: a huge article and deep nesting
    if huge_size:
        yield response(rng, "https://example.com/huge", warc_date, html_page(rng, 9005, size=huge_size).encode(),
                       "text/html; charset=utf-8", date=date), True
    if nest_depth:
        yield response(rng, "https://example.com/nested", warc_date, nested_page(nest_depth, rng).encode(),
                       "text/html; charset=utf-8", date=date), True


def write_warc(path: Path | str, *, records: int = 20, seed: int = 0, specials: bool = True, huge_size: int = 40,
               nest_depth: int = 1500, truncated: bool = True, info: bool = True, charset_override: str | None = None) -> Corpus:
    """Write a ``.warc.gz`` of ``records`` ordinary responses (each with its request), and the special cases.

    With ``truncated``, the file ends with a response cut in the middle of its gzip member; without
    ``info``, it has no warcinfo record; ``charset_override`` declares that charset on every page.
    """
    rng = random.Random(seed)
    path = Path(path)
    corpus = Corpus(path)
    entries: list[tuple[Record, bool]] = [(warcinfo(rng, path.name), False)] if info else []
    entries += ordinary_records(rng, records, charset_override=charset_override)
    if specials:
        entries += special_records(rng, huge_size, nest_depth)
    if truncated:
        tail = [record for record, html in ordinary_records(rng, 1, first_index=records + 1000) if html][0]
        tail.truncate_to = -200
        entries.append((tail, False))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        for record, html in entries:
            corpus.offsets.append(handle.tell())
            member = gzip.compress(warc_bytes(record), mtime=0)
            if record.truncate_to is not None:
                member = member[:record.truncate_to]
            handle.write(member)
            corpus.records.append(record)
            corpus.html_responses += html
    return corpus


CLOCK_DATED = ("https://example.com/no-date", "https://example.com/impossible-date")
"""The special records whose ``created`` upstream takes from the clock (no usable HTTP Date)."""


def document_differences(expected: dict, got: dict, ignore: set[str] = frozenset({"added"}), prefix: str = "") -> list[str]:
    """Every field of two documents that differs (metadata and attributes key by key, dotted), as
    ``field: expected ... got ...``; the dotted fields in ``ignore`` are not compared."""
    found = []
    for key in sorted(set(expected) | set(got)):
        if prefix + key in ignore:
            continue
        left, right = expected.get(key, "<absent>"), got.get(key, "<absent>")
        if isinstance(left, dict) and isinstance(right, dict):
            found += document_differences(left, right, ignore, f"{prefix}{key}.")
        elif left != right:
            found.append(f"{prefix}{key}: expected {str(left)[:300]!r} got {str(right)[:300]!r}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--huge-size", type=int, default=40, help="the huge page's article is this many times an ordinary one")
    parser.add_argument("--nest-depth", type=int, default=1500, help="nesting depth of the deeply nested page")
    parser.add_argument("--no-specials", action="store_true")
    args = parser.parse_args()
    corpus = write_warc(args.output, records=args.records, seed=args.seed, specials=not args.no_specials,
                        huge_size=args.huge_size, nest_depth=args.nest_depth)
    print(f"{args.output}: {len(corpus.records)} records, {corpus.html_responses} html responses")


if __name__ == "__main__":
    main()
