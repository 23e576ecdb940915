"""Mixing one shard (the unit of ``mix``): kept documents rewritten and written to the shard's output.

Per batch: spans replaced by the vectorized kernel (:mod:`dolma_sql.spans`), documents shorter
than ``min_text_length`` dropped, attributes merged, ``discard_fields`` dropped and
``metadata.provenance`` set; the shard's output is committed whole (:func:`dolma_sql.storage.output`).
"""

from __future__ import annotations

import msgspec
import numpy as np
import pyarrow as pa

from dolma_sql import layout, storage
from dolma_sql.formats.lines import LineBatch
from dolma_sql.mixer.documents import TEXTS, decode_documents, decode_values, encode_documents, select_rows, text_literal, text_shorter_than
from dolma_sql.mixer.edits import collect_edits
from dolma_sql.formats.nesting import naming_the_line
from dolma_sql.mixer.plan import ShardTask
from dolma_sql.mixer.shard import diagnose, queried_batches
from dolma_sql.runtime import Counters, add_count
from dolma_sql.spans import apply_spans_to_literals
from dolma_sql.storage.commit import remove_temps


WRITE_BYTES = 8 << 20
"""Encoded documents are handed to the compressor this many bytes at a time."""


def write_shard(task: ShardTask) -> Counters:
    """Mix one shard into its output (the unit function of ``mix``)."""
    counters: Counters = {"shards": 1}
    remove_temps(task.shard.output)  # of a writer killed before it committed
    with storage.output(task.shard.output, staging=task.staging) as writer:
        for batch, attribute_lines, result in queried_batches(task):
            mix_batch(batch, attribute_lines, result, task, writer, counters)
    return counters


def mix_batch(batch: LineBatch, attribute_lines: list, result: pa.Table, task: ShardTask, writer, counters: Counters) -> None:
    """Write the documents of ``batch`` that the query's ``result`` keeps, rewritten."""
    stream = task.plan.stream
    kept_rows = np.flatnonzero(result.column("keep").to_numpy(zero_copy_only=False))
    add_count(counters, "documents", len(batch))
    add_count(counters, "bytes_in", batch.lines.nbytes)
    if not len(kept_rows):
        return
    line_numbers = kept_rows + batch.first_line
    try:
        with naming_the_line(batch.path, line_numbers):
            documents = decode_documents(select_rows(batch.lines, kept_rows))
    except msgspec.DecodeError:  # a query that reads no document field parses none
        diagnose(batch, attribute_lines, task, None)
        raise
    bad = next((i for i, document in enumerate(documents) if type(document) is not dict or type(document.get("text")) not in TEXTS), None)
    if bad is not None:  # the query checks the text of dropped documents only
        diagnose(batch, attribute_lines, task, int(kept_rows[bad]))
    too_short = _replace_spans(documents, result, kept_rows, batch, task, counters)
    discard = set(stream.output.discard_fields)
    merge_attributes = bool(stream.attributes) and "attributes" not in discard
    attribute_records = [_decode_records(lines, kept_rows, line_numbers, batch, task, index) for index, lines in enumerate(attribute_lines)] if merge_attributes else []
    basename = storage.name(batch.path)
    provenance_lines = line_numbers.tolist()
    out = []
    merging = merge_attributes and any(records is not None for records in attribute_records)
    for position, document in enumerate(documents):
        if merging:
            merged = dict(document["attributes"]) if isinstance(document.get("attributes"), dict) else {}
            for records in attribute_records:
                if records is not None:
                    merged.update(records[position]["attributes"])
            document["attributes"] = merged
        for name in discard:
            document.pop(name, None)
        if too_short[position]:
            add_count(counters, "documents_too_short", 1)
            continue
        metadata = document.get("metadata")
        if not isinstance(metadata, dict):
            metadata = document["metadata"] = {}
        metadata["provenance"] = f"{basename}:{provenance_lines[position]}"
        out.append(document)
    add_count(counters, "documents_kept", len(out))
    if out:
        encoded = memoryview(encode_documents(out))
        for start in range(0, len(encoded), WRITE_BYTES):  # the compressor's output for a huge document stays small
            writer.write(encoded[start : start + WRITE_BYTES])


def _decode_records(lines: pa.Array | None, kept_rows: np.ndarray, line_numbers: np.ndarray, batch: LineBatch, task: ShardTask, set_index: int) -> list | None:
    """The kept rows' attribute lines of one set, decoded (``None`` for a set without a file)."""
    if lines is None:
        return None
    stream = task.plan.stream
    with naming_the_line(layout.attribute_path(batch.path, stream.attributes[set_index], document_dir=stream.document_dir), line_numbers):
        return decode_values(select_rows(lines, kept_rows).to_pylist())


def _replace_spans(documents: list[dict], result: pa.Table, kept_rows: np.ndarray, batch: LineBatch, task: ShardTask, counters: Counters) -> list[bool]:
    """Apply the span edits to the kept documents' texts (in place, as JSON literals the encoder copies);
    returns which documents ``min_text_length`` drops."""
    edits_by_rule = collect_edits(result, kept_rows, batch, task)
    if edits_by_rule is not None:
        edits, edited, _ = edits_by_rule
        literals = [text_literal(documents[i]["text"]) for i in edited]
        replaced = apply_spans_to_literals(literals, edits)
        add_count(counters, "documents_span_replaced", sum(new != old for new, old in zip(map(memoryview, replaced), literals)))
        for document_index, literal in zip(edited, replaced):
            documents[document_index]["text"] = literal
    min_length = task.plan.stream.output.min_text_length or 0
    return [bool(min_length) and text_shorter_than(document["text"], min_length) for document in documents]
