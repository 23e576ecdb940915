"""Dolma documents of a batch of pages: taggers before and after extraction, and the JSON lines upstream writes.

The pre and post taggers are the vectorized taggers ``tag`` runs, each called once per batch on
Arrow columns (``id``, ``text``, ``source`` and, when a tagger reads it, ``metadata`` as JSON with
``html``). As upstream, pre taggers see an empty text, and a stage's ``skip`` drops a page for which
its taggers emit no attribute key at all (a tagger with default keys always emits them). Their
spans are written inline as ``attributes`` keyed ``<tagger>__<tagger>__<type>``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np
import pyarrow as pa

from dolma_sql.formats.attributes import Spans, encode_attribute_fields
from dolma_sql.tagger.batch import TagBatch
from dolma_sql.tagger.registry import KeyedSpans, TaggerSpec, make_variable_name
from dolma_sql.warc.records import Page

VERSION = "v0"
"""upstream's ``source_version``, fixed."""


class Metadata(msgspec.Struct):
    warc_url: str
    url: str
    warc_date: str
    warc_filename: str
    content_type: str
    uncompressed_offset: int


class MetadataWithHtml(msgspec.Struct):
    warc_url: str
    url: str
    html: str
    warc_date: str
    warc_filename: str
    content_type: str
    uncompressed_offset: int


class Document(msgspec.Struct):
    """upstream's document, its keys in upstream's order."""

    id: str
    text: str
    source: str
    created: str
    added: str
    version: str
    metadata: Metadata | MetadataWithHtml
    attributes: msgspec.Raw


def metadata_of(page: Page, *, html: bool) -> Metadata | MetadataWithHtml:
    if html:
        return MetadataWithHtml(page.target_uri, page.url, page.html, page.warc_date, page.warc_filename, page.content_type, page.offset)
    return Metadata(page.target_uri, page.url, page.warc_date, page.warc_filename, page.content_type, page.offset)


class Stage:
    """The taggers of one stage (pre or post) and whether it drops pages they emit nothing for."""

    def __init__(self, specs: Sequence[TaggerSpec], skip: bool) -> None:
        self.specs = list(specs)
        self.skip = skip
        self.needs_metadata = any("metadata" in spec.needs for spec in self.specs)

    def run(self, ids: list[str], texts: list[str], source: str, metadata_json: list[bytes] | None) -> tuple[list[KeyedSpans], np.ndarray]:
        """The keyed spans of every tagger on this batch and which rows to keep."""
        n = len(ids)
        keep = np.ones(n, dtype=bool)
        if not self.specs:
            return [], keep
        columns = {"id": pa.array(ids, pa.large_string()), "text": pa.array(texts, pa.large_string()), "source": pa.array([source] * n, pa.large_string())}
        if metadata_json is not None:
            columns["metadata"] = pa.array(metadata_json, pa.large_binary()).cast(pa.large_string())  # UTF-8 already
        batch = TagBatch(pa.table(columns))
        keyed: list[KeyedSpans] = []
        emitted = np.zeros(n, dtype=bool)
        for spec in self.specs:
            prefix = f"{make_variable_name(spec.name)}__{make_variable_name(spec.name)}"
            output = spec.run(batch)
            keyed += spec.keyed(prefix, output)
            if spec.defaults:
                emitted[:] = True
            for spans in output.values():
                emitted[spans.rows] = True
        if self.skip:
            keep = emitted
        return keyed, keep


def reindexed(keyed: list[KeyedSpans], positions: np.ndarray) -> list[KeyedSpans]:
    """The spans moved to the rows ``positions`` gives (``-1``: row dropped)."""
    moved = []
    for key, spans, always in keyed:
        new_rows = positions[spans.rows] if len(spans) else spans.rows
        kept = new_rows >= 0
        moved.append((key, Spans(new_rows[kept], spans.starts[kept], spans.ends[kept], spans.scores[kept]), always))
    return moved


def attribute_objects(n_rows: int, keyed: list[KeyedSpans]) -> list[msgspec.Raw]:
    """Each row's ``attributes`` JSON object."""
    if not keyed:
        return [EMPTY_ATTRIBUTES] * n_rows
    return [msgspec.Raw(text.encode()) for text in encode_attribute_fields(n_rows, keyed).to_pylist()]


EMPTY_ATTRIBUTES = msgspec.Raw(b"{}")
