"""One unit of ``warc``: a WARC file read once, its pages extracted batch by batch, its documents file committed whole.

Units are picklable and :func:`convert_file` is top-level, so any executor can run them anywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import msgspec
import numpy as np

from dolma_sql import storage
from dolma_sql.runtime import add_count, progress
from dolma_sql.storage.commit import remove_temps
from dolma_sql.tagger.registry import get_tagger
from dolma_sql.warc.documents import VERSION, Document, Stage, attribute_objects, metadata_of, reindexed
from dolma_sql.warc.extraction import Rejected, extractor
from dolma_sql.warc.plan import WarcUnit
from dolma_sql.warc.records import Page, read_pages

BATCH_PAGES = 256
"""Pages extracted and tagged together: enough to amortise a tagger call and a message to the extraction process."""
BATCH_CHARACTERS = 32 << 20
"""HTML characters in a batch at most (a batch of huge pages stays small)."""


class RejectsWriter:
    """The rejected records of a WARC file, as JSON lines (nothing when no rejects file is asked for)."""

    def __init__(self, source: str, writer) -> None:
        self.source = source
        self.writer = writer
        self.encoder = msgspec.json.Encoder()

    def __call__(self, offset: int, kind: str, target_uri: str, reason: str, detail: str) -> None:
        if self.writer is not None:
            line = {"warc": self.source, "uncompressed_offset": offset, "type": kind, "target_uri": target_uri, "reason": reason, "detail": detail}
            self.writer.write(self.encoder.encode(line) + b"\n")


def convert_file(unit: WarcUnit) -> dict[str, float]:
    """Extract the pages of ``unit.source`` into ``unit.output`` (and its rejected records into ``unit.rejects``)."""
    settings = unit.settings
    pre = Stage([get_tagger(name) for name in settings.pre_taggers], settings.pre_skip)
    post = Stage([get_tagger(name) for name in settings.post_taggers], settings.post_skip)
    extract = extractor(settings.linearizer, settings.time_limit)
    counters: dict[str, float] = {"files": 1, "documents": 0}
    outputs = [unit.output] + ([unit.rejects] if unit.rejects else [])
    for url in outputs:
        remove_temps(url)  # of a writer killed before it committed
    with ExitStack() as stack:
        writer = stack.enter_context(storage.output(unit.output, staging=unit.staging))
        rejects_writer = stack.enter_context(storage.output(unit.rejects, staging=unit.staging)) if unit.rejects else None
        reject = RejectsWriter(unit.source, rejects_writer)
        encoder = msgspec.json.Encoder()
        pages = read_pages(unit.source, added=settings.added, counters=counters, reject=reject, progress=lambda n: progress.advance(bytes_read=n), staging=unit.input_staging)
        for batch in _batches(pages):
            documents = _documents(batch, unit, pre, post, extract, reject, counters)
            if documents:
                writer.write(encoder.encode_lines(documents))
            counters["documents"] += len(documents)
            progress.advance(documents=len(documents))
    return counters


def _batches(pages: Iterator[Page]) -> Iterator[list[Page]]:
    batch: list[Page] = []
    characters = 0
    for page in pages:
        batch.append(page)
        characters += len(page.html)
        if len(batch) >= BATCH_PAGES or characters >= BATCH_CHARACTERS:
            yield batch
            batch, characters = [], 0
    if batch:
        yield batch


def _documents(batch: list[Page], unit: WarcUnit, pre: Stage, post: Stage, extract, reject: RejectsWriter, counters: dict[str, float]) -> list[Document]:
    """The documents of a batch of pages: pre taggers, extraction, post taggers, each stage dropping pages."""
    settings = unit.settings
    source = settings.source_name
    metadata_json = [msgspec.json.encode(metadata_of(page, html=True)) for page in batch] if pre.needs_metadata or post.needs_metadata else None
    ids = [page.id for page in batch]

    pre_keyed, keep = pre.run(ids, [""] * len(batch), source, metadata_json)
    _add_nonzero(counters, "skipped_pre_taggers", int((~keep).sum()))
    rows, texts = _extracted(batch, np.flatnonzero(keep), extract, reject, counters)

    post_keyed, post_keep = post.run([ids[r] for r in rows], texts, source, [metadata_json[r] for r in rows] if metadata_json is not None else None)
    _add_nonzero(counters, "skipped_post_taggers", int((~post_keep).sum()))
    final = rows[post_keep]
    positions = np.full(len(batch), -1, dtype=np.int64)
    positions[final] = np.arange(len(final))
    post_positions = np.full(len(rows), -1, dtype=np.int64)
    post_positions[np.flatnonzero(post_keep)] = np.arange(len(final))
    attributes = attribute_objects(len(final), reindexed(pre_keyed, positions) + reindexed(post_keyed, post_positions))

    documents = []
    for index, (row, text) in enumerate(zip(final.tolist(), (t for t, k in zip(texts, post_keep) if k))):
        page = batch[row]
        documents.append(Document(page.id, text, source, page.created, settings.added, VERSION, metadata_of(page, html=settings.store_html_in_metadata), attributes[index]))
    _add_nonzero(counters, "text_bytes", sum(len(document.text.encode()) for document in documents))
    return documents


def _extracted(batch: list[Page], rows: np.ndarray, extract, reject: RejectsWriter, counters: dict[str, float]) -> tuple[np.ndarray, list[str]]:
    """The rows whose pages gave a text, and their texts; the others counted and rejected."""
    results = extract.extract([batch[row].html for row in rows]) if len(rows) else []
    kept, texts = [], []
    for row, result in zip(rows.tolist(), results):
        if isinstance(result, Rejected):
            page = batch[row]
            add_count(counters, f"skipped_{result.reason}")
            reject(page.offset, page.kind, page.target_uri, result.reason, result.detail)
        else:
            kept.append(row)
            texts.append(result)
    return np.array(kept, dtype=np.int64), texts


def _add_nonzero(counters: dict[str, float], key: str, value: int) -> None:
    """A counter that stays out of the report (and of the warnings' lists) while it is zero."""
    if value:
        add_count(counters, key, value)
