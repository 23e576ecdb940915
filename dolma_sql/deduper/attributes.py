"""Writing one attribute file: a unit's score from its keys' duplicate flags (dolma's rules), then
``{"attributes":{...},"id":...}`` per input line, dolma's deduper's exact shape, with the one attribute codec."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from dolma_sql import storage
from dolma_sql.deduper.intermediates import read_table
from dolma_sql.deduper.keys import KIND_FALLBACK, KIND_SILENT
from dolma_sql.deduper.plan import FileJob, Settings, Writing
from dolma_sql.deduper.report import Stats
from dolma_sql.formats.attributes import Spans, encode_attribute_fields, encode_objects, format_floats
from dolma_sql.storage.commit import remove_temps


def unit_scores(units: pa.Table, keys: pa.Table, duplicate: np.ndarray, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """Per unit: reported? and its score (dolma's rules for whole keys, n-gram overlap and short paragraphs)."""
    kind = units.column("kind").to_numpy()
    key_unit = keys.column("unit").to_numpy()
    whole = keys.column("whole").to_numpy()
    whole_duplicate = np.zeros(len(kind), dtype=bool)
    whole_duplicate[key_unit[whole & duplicate]] = True
    if settings.ngram_length == 0:
        return whole_duplicate, np.ones(len(kind), dtype=np.float32)
    duplicates = np.bincount(key_unit[duplicate & ~whole], minlength=len(kind)).astype(np.float32)
    counts = units.column("count").to_numpy().astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(kind == KIND_FALLBACK, whole_duplicate.astype(np.float32), duplicates / counts).astype(np.float32)
    reported = (kind != KIND_SILENT) & (score >= np.float32(settings.overlap_threshold))
    return reported, score


def _whole_match(scores: np.ndarray) -> pa.Array:
    """dolma's deduper writes a whole-key match's score as the integer ``1``."""
    offsets = np.arange(len(scores) + 1, dtype=np.int64)
    return pa.LargeStringArray.from_buffers(len(scores), pa.py_buffer(offsets), pa.py_buffer(b"1" * len(scores)))


def _overlap(scores: np.ndarray) -> pa.Array:
    """An n-gram overlap as dolma's deduper writes it: the float32 fraction, widened to a double, unrounded."""
    return format_floats(scores)


def write_attributes(job: FileJob, prefix: str, duplicate: np.ndarray, settings: Settings, writing: Writing) -> Stats:
    """Write ``job``'s attribute file from its intermediate tables and the duplicate flag of each key."""
    documents = read_table(prefix, "docs")
    units = read_table(prefix, "units")
    keys = read_table(prefix, "keys", columns=["unit", "whole"])
    reported, score = unit_scores(units, keys, duplicate, settings)
    index = np.flatnonzero(reported)
    doc = units.column("doc").to_numpy()[index]
    spans = Spans(doc, units.column("start").to_numpy()[index], units.column("end").to_numpy()[index], score[index])
    writes_empty = documents.column("writes_empty").to_numpy()
    attributes = encode_attribute_fields(
        documents.num_rows, [(settings.attribute, spans, writes_empty)], score_text=_overlap if settings.ngram_length else _whole_match
    )
    ids = documents.column("id").combine_chunks().fill_null("null")
    remove_temps(job.attributes)  # of a writer killed before it committed
    with storage.output(job.attributes, codec=writing.codec, staging=writing.staging, rename=writing.rename) as writer:
        writer.write(encode_objects([("attributes", attributes), ("id", ids)]))
    return Stats(
        documents=documents.num_rows,
        units=units.num_rows,
        keys=keys.num_rows,
        duplicate_keys=int(duplicate.sum()),
        marked_spans=len(index),
        marked_documents=int((spans.per_row(documents.num_rows) > 0).sum()),
        marked_bytes=int(units.column("bytes").to_numpy()[index].sum()),
        files=1,
    )
