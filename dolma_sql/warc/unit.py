"""One unit of ``warc``: a WARC file read once, its pages extracted batch by batch, its documents file committed whole.

Units are picklable and :func:`convert_file` is top-level, so any executor can run them anywhere.
"""

from __future__ import annotations

from contextlib import ExitStack
from itertools import islice

import msgspec
import numpy as np

from dolma_sql import storage
from dolma_sql.runtime import progress
from dolma_sql.storage.commit import remove_temps
from dolma_sql.tagger.registry import get_tagger
from dolma_sql.warc.documents import Document, Stage, attribute_objects, metadata_of, reindexed, VERSION
from dolma_sql.warc.extraction import Rejected, extractor
from dolma_sql.warc.plan import WarcUnit
from dolma_sql.warc.records import Page, read_pages

BATCH_PAGES = 256
"""Pages extracted and tagged together: enough to amortise a tagger call and a message to the extraction process."""


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
        while batch := list(islice(pages, BATCH_PAGES)):
            documents = _documents(batch, unit, pre, post, extract, reject, counters)
            if documents:
                writer.write(encoder.encode_lines(documents))
            counters["documents"] += len(documents)
            progress.advance(documents=len(documents))
    return counters


def _documents(batch: list[Page], unit: WarcUnit, pre: Stage, post: Stage, extract, reject: RejectsWriter, counters: dict[str, float]) -> list[Document]:
    settings = unit.settings
    source = settings.source_name
    with_html = settings.store_html_in_metadata or pre.needs_metadata or post.needs_metadata
    metadata = [metadata_of(page, html=with_html) for page in batch]
    metadata_json = [msgspec.json.encode(m) for m in metadata] if pre.needs_metadata or post.needs_metadata else None
    ids = [page.id for page in batch]

    pre_keyed, keep = pre.run(ids, [""] * len(batch), source, metadata_json)
    _add(counters, "skipped_pre_taggers", int((~keep).sum()))
    kept = np.flatnonzero(keep)
    results = extract.extract([batch[i].html for i in kept]) if len(kept) else []
    extracted = []
    for row, result in zip(kept.tolist(), results):
        if isinstance(result, Rejected):
            page = batch[row]
            _add(counters, f"skipped_{result.reason}", 1)
            reject(page.offset, page.kind, page.target_uri, result.reason, result.detail)
        else:
            extracted.append((row, result))
    rows = np.array([row for row, _ in extracted], dtype=np.int64)
    texts = [text for _, text in extracted]

    post_keyed, post_keep = post.run([ids[r] for r in rows], texts, source, [metadata_json[r] for r in rows] if metadata_json is not None else None)
    _add(counters, "skipped_post_taggers", int((~post_keep).sum()))
    final = rows[post_keep]
    positions = np.full(len(batch), -1, dtype=np.int64)
    positions[final] = np.arange(len(final))
    post_positions = np.full(len(rows), -1, dtype=np.int64)
    post_positions[np.flatnonzero(post_keep)] = np.arange(len(final))
    keyed = reindexed(pre_keyed, positions) + reindexed(post_keyed, post_positions)
    attributes = attribute_objects(len(final), keyed)

    documents = []
    text_of = dict(extracted)
    for index, row in enumerate(final.tolist()):
        page, text = batch[row], text_of[row]
        meta = metadata[row] if settings.store_html_in_metadata or not with_html else metadata_of(page, html=False)
        documents.append(Document(page.id, text, source, page.created, settings.added, VERSION, meta, attributes[index]))
        _add(counters, "text_bytes", len(text.encode()))
    return documents


def _add(counters: dict[str, float], key: str, value: int) -> None:
    if value:
        counters[key] = counters.get(key, 0) + value
