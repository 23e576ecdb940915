"""Reading a WARC file into pages: the records upstream's ``dolma warc`` would extract, decoded as it decodes them.

fastwarc parses the records (``response``, ``resource`` and ``warcinfo``) from the decompressed
stream, so ``uncompressed_offset`` is the record's offset in the uncompressed WARC, as upstream's.
A record needs a ``WARC-Payload-Digest`` and a ``WARC-Target-URI``; its payload is decoded with the
HTTP charset, else with the charset charset-normalizer detects, and a page that decodes to nothing
is skipped. Every record not kept is counted by reason, and the ones that are the input's fault are
handed to ``reject`` with their offset.
"""

from __future__ import annotations

import codecs
import io

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from dolma_sql.errors import InputError
from dolma_sql.runtime.executor import Counters, add_count
from dolma_sql.storage import urls
from dolma_sql.storage.codecs import DECODER_ERRORS, codec_of, decompressed_reader
from dolma_sql.warc.fields import canonical_url, dolma_timestamp, header_timestamp, payload_id

Reject = Callable[[int, str, str, str, str], None]
"""``reject(offset, record type, target URI, reason, detail)``."""


@dataclass
class Page:
    """A record to extract: its decoded HTML and the fields of its document."""

    offset: int
    kind: str
    id: str
    target_uri: str
    url: str
    html: str
    content_type: str
    created: str
    warc_date: str
    warc_filename: str


def read_pages(url: str, *, added: str, counters: Counters, reject: Reject, progress: Callable[[int], None], staging: str | None = None) -> Iterator[Page]:
    """The pages of the WARC file ``url``, in file order; ``progress(bytes)`` is told how far the raw file has been read.

    Missing or unreadable dates fall back to ``added`` (upstream takes the clock). A corrupt or
    truncated file is an InputError naming the file and the offset of the last record read.
    """
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    warc_date, warc_filename = added, ""
    offset: int | None = None  # of the last record read
    read = 0
    with urls.open_input(url, staging=staging) as raw, decompressed_reader(raw, codec_of(url)) as stream:
        records = iter(ArchiveIterator(Positioned(stream), record_types=WarcRecordType.response | WarcRecordType.warcinfo | WarcRecordType.resource))
        while (record := _next_record(records, url, raw, offset)) is not None:
            offset = record.stream_pos
            kind = str(record.record_type)  # response, resource or warcinfo
            add_count(counters, f"records_{kind}")
            if kind == "warcinfo":
                warc_date = dolma_timestamp(record.record_date) if record.record_date else added
                warc_filename = record.record_id or ""
                continue
            content = _read(record, url, raw, offset)
            add_count(counters, "html_bytes", len(content))
            if (position := _position(raw)) > read:
                progress(position - read)
                read = position
            page = _page(record, kind, content, offset, added, reject, counters)
            if page is not None:
                page.warc_date, page.warc_filename = warc_date, warc_filename
                yield page


def _next_record(records, url: str, raw, offset: int | None):
    try:
        return next(records, None)
    except (*DECODER_ERRORS, ValueError) as error:
        raise _corrupt(url, raw, error, offset) from None


def _read(record, url: str, raw, offset: int) -> bytes:
    try:
        return record.reader.read()
    except (*DECODER_ERRORS, ValueError) as error:
        raise _corrupt(url, raw, error, offset) from None


def _corrupt(url: str, raw, error: Exception, offset: int | None) -> InputError:
    last = f"; the last record read starts at uncompressed offset {offset}" if offset is not None else ""
    return InputError(
        f"corrupt or truncated WARC: the reader had read {_position(raw)} bytes of the file, reading ahead, when it failed "
        f"({type(error).__name__}: {error}){last}",
        path=url,
        hint="re-download the file, or leave it out of --documents",
    )


def _page(record, kind: str, content: bytes, offset: int, added: str, reject: Reject, counters: Counters) -> Page | None:
    headers = record.headers
    target_uri = headers.get("WARC-Target-URI") or ""

    def skip(reason: str, detail: str, rejected: bool = True) -> None:
        add_count(counters, f"skipped_{reason}")
        if rejected:
            reject(offset, kind, target_uri, reason, detail)

    if len(content) < record.content_length:
        skip("truncated", f"the record ends after {len(content)} of its {record.content_length} bytes")
        return None
    digest = headers.get("WARC-Payload-Digest")
    if not digest:
        skip("no_digest", "the record has no WARC-Payload-Digest", rejected=False)
        return None
    if not target_uri:
        skip("no_target_uri", "the record has no WARC-Target-URI", rejected=False)
        return None
    document_id = payload_id(digest)
    if document_id is None:
        skip("bad_digest", f"WARC-Payload-Digest {digest!r} is not algorithm:value")
        return None
    html, problem = decode(content, record.http_charset)
    if not html:
        if problem:
            skip("undecodable", problem)
        else:
            skip("empty", "the payload is empty or only whitespace", rejected=False)
        return None
    try:
        url = canonical_url(target_uri)
    except ValueError as error:  # upstream's canonicalisation fails the whole file on such a URI
        skip("bad_target_uri", f"WARC-Target-URI {target_uri!r} cannot be canonicalised: {error}")
        return None
    if kind == "response":
        http = record.http_headers
        content_type = (http.get("Content-Type") or "") if http is not None else ""
        date = http.get("Date") if http is not None else None
    else:
        content_type, date = headers.get("Content-Type") or "", headers.get("WARC-Date")
    return Page(offset, kind, document_id, target_uri, url, html, content_type.split(";")[0], header_timestamp(date, added), "", "")


def decode(content: bytes, charset: str | None) -> tuple[str, str]:
    """The payload as text, stripped, and what went wrong when that is empty (``""``: it was only whitespace).

    The HTTP charset first; when it fails (or names no codec Python knows: upstream stops there with
    an error), the encoding charset-normalizer detects, as upstream. A page that is valid UTF-8, without
    a byte-order mark and without another charset declared in its first bytes (which the detector would
    follow), is taken as UTF-8 without asking the detector, which picks UTF-8 or ASCII for realistic pages
    (and on letter soup sometimes a charset that garbles it), at a fraction of the cost.
    """
    if charset:
        try:
            text = content.decode(charset).strip()
        except (UnicodeDecodeError, LookupError):
            text = ""
        if text:
            return text, ""
    if (text := _plain_utf8(content)) is not None:
        return text, ""
    from charset_normalizer import detect

    encoding = detect(content)["encoding"]
    if not encoding:
        return "", "" if not content.strip() else "no charset detected"
    try:
        return content.decode(str(encoding)).strip(), ""
    except (UnicodeDecodeError, LookupError) as error:
        return "", f"detected charset {encoding} does not decode it: {error}"


class Positioned(io.RawIOBase):
    """A reader that knows its position (fastwarc asks a Python stream for it, and decompressors cannot seek)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.position = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = self.stream.readinto(buffer)
        self.position += count
        return count

    def tell(self) -> int:
        return self.position


def _plain_utf8(content: bytes) -> str | None:
    """``content`` as UTF-8 when the detector would read it so (see :func:`decode`), else ``None``."""
    if content.startswith(codecs.BOM_UTF8):
        return None
    try:
        text = content.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    if not text:
        return None
    from charset_normalizer.utils import any_specified_encoding

    declared = any_specified_encoding(content)
    if declared in (None, "utf_8") or (content.isascii() and _ascii_compatible(declared)):
        return text
    return None


def _ascii_compatible(encoding: str) -> bool:
    try:
        return "<a b>".encode(encoding) == b"<a b>"
    except (LookupError, UnicodeError):
        return False


def _position(raw) -> int:
    try:
        return raw.tell()
    except (OSError, ValueError):
        return 0
