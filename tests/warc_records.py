"""A small WARC writer for the warc tests: one gzip member per record, as Common Crawl writes them."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path


def warc_record(kind: str, headers: dict[str, str], block: bytes) -> bytes:
    lines = [f"WARC/1.0", f"WARC-Type: {kind}", *(f"{k}: {v}" for k, v in headers.items()), f"Content-Length: {len(block)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def response(url: str, body: bytes, *, charset: str | None = "utf-8", date: str | None = "Wed, 01 May 2024 10:00:00 GMT", digest: bool | str = True) -> bytes:
    """A response record; ``digest`` False leaves the payload digest out, a string replaces it."""
    http = "HTTP/1.1 200 OK\r\n" + f"Content-Type: text/html{'; charset=' + charset if charset else ''}\r\n"
    http += f"Date: {date}\r\n" if date else ""
    headers = {"WARC-Target-URI": url, "WARC-Date": "2024-05-01T10:00:01Z", "WARC-Record-ID": f"<urn:uuid:{hashlib.md5(url.encode()).hexdigest()}>"}
    if digest:
        headers["WARC-Payload-Digest"] = digest if isinstance(digest, str) else "sha1:" + hashlib.sha1(body).hexdigest().upper()
    return warc_record("response", headers | {"Content-Type": "application/http; msgtype=response"}, http.encode() + "\r\n".encode() + body)


def warcinfo() -> bytes:
    return warc_record("warcinfo", {"WARC-Date": "2024-05-01T09:00:00Z", "WARC-Record-ID": "<urn:uuid:info>"}, b"software: test\r\n")


def write_warc(path: Path, records: list[bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(gzip.compress(record) for record in records))
    return path


def page(title: str, paragraphs: int = 3) -> bytes:
    body = "".join(f"<p>{title} paragraph {i} with enough words to count as main content for the extractor.</p>" for i in range(paragraphs))
    return f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{body}</article></body></html>".encode()
