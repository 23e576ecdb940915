"""``dolma-sql mix``: filter documents, replace spans, merge attributes, reshard.

The recipe compiles, per stream, to one DuckDB query (see :mod:`dolma_sql.compile`) that
runs over Arrow batches of raw document and attribute lines and returns which rows to keep
and the spans each replacement rule selected. Kept documents are then rewritten (span
replacement by the vectorized kernel in :mod:`dolma_sql.spans`, attribute merge, discarded
fields, provenance) and written as compact JSON with keys sorted at every depth, as dolma does.

Each output shard is one unit of work (:mod:`dolma_sql.runtime`): written to a temp name and
renamed, and skipped on rerun when it already exists, so an interrupted run resumes without
losing or duplicating a document.
"""

from __future__ import annotations

import codecs
import collections
import itertools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import duckdb
import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql import impact, layout, storage
from dolma_sql.errors import ConfigError, InputError
from dolma_sql.runtime import Counters, Executor, run_units
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.runtime.tuning import cyclic_gc_paused, keep_freed_memory
from dolma_sql.formats.lines import BATCH_BYTES, LineBatch, decode_object, head_lines, iter_line_batches, json_string_literals, line_bytes, line_offsets
from dolma_sql.storage import output
from dolma_sql.recipe import MixerConfig, StreamConfig, output_extension
from dolma_sql.spans import SpanEdits, apply_spans, split_template
from dolma_sql.text import UNICODE_WHITESPACE

_decode = msgspec.json.Decoder().decode
_decode_lines = msgspec.json.Decoder().decode_lines
_encode_lines = msgspec.json.Encoder(order="sorted").encode_lines
_KEY_SAMPLE_BYTES = 256 << 10
_decode_spans = msgspec.json.Decoder(list[list[tuple[int, int, float]] | None]).decode


class _Text(msgspec.Struct):
    text: str


class _AttributeKeys(msgspec.Struct):
    attributes: dict[str, msgspec.Raw] = {}


_decode_attribute_keys = msgspec.json.Decoder(_AttributeKeys).decode


class _StandardDocument(msgspec.Struct, forbid_unknown_fields=True):
    """A document with exactly dolma's standard fields; its text stays the JSON literal it was read as."""

    added: Any
    created: Any
    id: Any
    metadata: Any
    source: Any
    text: msgspec.Raw


_decode_standard_lines = msgspec.json.Decoder(_StandardDocument).decode_lines


_decode_texts = msgspec.json.Decoder(_Text).decode_lines  # dry runs: only the texts spans edit


@dataclass(frozen=True)
class SpanRuleRun:
    """What a worker needs of one span_replacement entry."""

    min_score: float
    max_score: float
    template: tuple[str, ...] | None  # None: the replacement is a jq value computed per document


@dataclass(frozen=True)
class StreamPlan:
    """A stream's compiled query and rules: computed once, before any work starts.

    It holds the query's SQL, not its AST: every shard task ships the plan to a worker, and
    unpickling a sqlglot tree costs more than a small shard's counting.
    """

    index: int
    stream: StreamConfig
    sql: str
    attribute_keys: frozenset[str]  # attribute keys the recipe reads, for "key not found" warnings
    span_rules: tuple[SpanRuleRun, ...]


@dataclass(frozen=True)
class ShardTask:
    """One unit of work: write one output shard from its input files."""

    plan: StreamPlan
    shard: layout.ShardPlan
    allow_missing_attributes: bool
    dry_run: bool = False


def compile_recipe(config: MixerConfig, *, dry_run: bool = False) -> list[StreamPlan]:
    """Compile every stream's filters and span selectors (pure: no file is touched).

    For a dry run the query also returns each rule's decision and the text lengths it counts.
    """
    from dolma_sql.compile import SpanRule, compile_stream  # here, so shard workers never import sqlglot

    plans = []
    for index, stream in enumerate(config.streams):
        where = f"streams[{index}]"
        filter_ = stream.filter
        query = compile_stream(
            include=list(filter_.include) if filter_ else [],
            exclude=list(filter_.exclude) if filter_ else [],
            syntax=filter_.syntax if filter_ else "jsonpath",
            spans=[SpanRule(span=s.span, syntax=s.syntax, replacement=s.replacement) for s in stream.span_replacement],
            n_attribute_sets=len(stream.attributes),
            config_path=where,
            alignment_check=True,
            rule_columns=dry_run,
            text_bytes=dry_run,
            stripped_text_bytes=UNICODE_WHITESPACE if dry_run and stream.output.min_text_length else None,
        )
        rules = tuple(
            SpanRuleRun(
                min_score=-np.inf if s.min_score is None else s.min_score,
                max_score=np.inf if s.max_score is None else s.max_score,
                template=None if s.replacement.startswith("$") else split_template(_unescape_dollar(s.replacement)),
            )
            for s in stream.span_replacement
        )
        plans.append(StreamPlan(index=index, stream=stream, sql=query.sql, attribute_keys=query.attribute_keys, span_rules=rules))
    return plans


def _unescape_dollar(replacement: str) -> str:
    """``\\$`` at the start is a literal dollar, not a jq expression."""
    return replacement[1:] if replacement.startswith("\\$") else replacement


def plan_shards(plans: list[StreamPlan], config: MixerConfig, *, warn: Callable[[str], None]) -> list[tuple[StreamPlan, layout.ShardPlan]]:
    """Expand globs and group files into output shards, for every stream."""
    work = []
    for plan in plans:
        stream = plan.stream
        where = f"streams[{plan.index}]"
        files = storage.expand_globs(list(stream.documents), config_path=f"{where}.documents", warn=warn)
        if config.shuffle:
            shards = layout.plan_shards(
                files,
                output_dir=stream.output.path,
                stream=stream.name,
                max_size_in_bytes=stream.output.max_size_in_bytes,
                extension=output_extension(stream),
            )
        else:
            shards = [layout.ShardPlan(_unshuffled_output(path, stream), (path,)) for path in files]
        _warn_missing_keys(plan, files[0], stream, warn)
        work.extend((plan, shard) for shard in shards)
    return work


def _unshuffled_output(path: str, stream: StreamConfig) -> str:
    """dolma's ``shuffle: false``: one output per input, under ``<output>/documents/<path after documents/>``."""
    parts = path.split("/")
    tail = parts[len(parts) - 1 - parts[::-1].index(stream.document_dir) + 1 :] if stream.document_dir in parts[:-1] else [path.lstrip("/")]
    return os.path.join(stream.output.path, "documents", *tail)


def _warn_missing_keys(plan: StreamPlan, first_file: str, stream: StreamConfig, warn: Callable[[str], None]) -> None:
    """Warn about referenced attribute keys that the first lines of the stream's first attribute files lack.

    Absence is legal (a filter on a missing key simply never matches), but it is usually a
    typo, so say which keys exist. Taggers write every key on every line, so the keys of the
    first 256 KiB of lines stand for the file. The check runs before any shard starts: msgspec
    reads the keys in a few milliseconds (a DuckDB connection and query took 60 ms).
    """
    if not plan.attribute_keys or not stream.attributes:
        return
    available: set[str] = set()
    for name in stream.attributes:
        path = layout.attribute_path(first_file, name, document_dir=stream.document_dir)
        batch = head_lines(path, _KEY_SAMPLE_BYTES) if os.path.exists(path) else None
        for line in batch.lines.to_pylist() if batch is not None else []:
            try:
                available.update(_decode_attribute_keys(line).attributes)
            except msgspec.DecodeError:  # a malformed line is reported, with its number, when its shard runs
                continue
    missing = sorted(plan.attribute_keys - available)
    if missing:
        warn(
            f"streams[{plan.index}]: filter keys {missing} are in none of the first lines of the attribute files of {first_file}; "
            f"available keys: {sorted(available)}"
        )


def run_shard(task: ShardTask) -> Counters:
    """Mix one shard (the unit of work). Skips a shard whose output already exists."""
    counters: Counters = {"shards": 1}
    if task.dry_run:
        with cyclic_gc_paused():
            for batch, _, result in _queried_batches(task):
                _count_batch(batch, result, task, counters)
        return counters
    if os.path.exists(task.shard.output):
        return {"shards_skipped": 1}
    with cyclic_gc_paused(), output(task.shard.output) as writer:
        for batch, attribute_lines, result in _queried_batches(task):
            _mix_batch(batch, attribute_lines, result, task, writer, counters)
    return counters


def _queried_batches(task: ShardTask) -> Iterator[tuple[LineBatch, list[pa.Array | None], pa.Table]]:
    """Every batch of the shard's inputs, its attribute lines, and the stream query's result on them.

    The query runs once per shard, over a stream of all its batches, and its result is cut back into
    the batches it answers: planning the query costs 15-20 ms at each run, as much as querying a few
    thousand documents. DuckDB reads the stream as its answers are taken (see ``_RESULT_BUFFER_BYTES``),
    so it holds a batch or two at a time.
    """
    keep_freed_memory()
    connection = _connection()
    unanswered: collections.deque[tuple[LineBatch, list[pa.Array | None]]] = collections.deque()
    input_failure: list[Exception] = []

    def inputs() -> Iterator[pa.RecordBatch]:
        try:
            for path in task.shard.inputs:
                for batch, attribute_lines in _aligned_batches(path, task):
                    unanswered.append((batch, attribute_lines))
                    yield from _query_input(batch, attribute_lines).to_batches()
        except Exception as error:  # raised below with its own type, not as a DuckDB error about a Python stream
            input_failure.append(error)

    schema = _query_input(None, [None] * len(task.plan.stream.attributes)).schema
    connection.register("batch", pa.RecordBatchReader.from_batches(schema, inputs()))
    results = query_failure = None
    try:
        results = _stream_query(connection, task.plan.sql).to_arrow_reader(_RESULT_ROWS)
        answered = _Rows(iter(results))
        while not input_failure and (unanswered or answered.peek()):  # peeking lets the query read the next batch
            batch, attribute_lines = unanswered.popleft()
            result = pa.Table.from_batches(answered.take(len(batch)), results.schema)
            if input_failure:
                break
            if result.num_rows != len(batch):
                raise RuntimeError(f"the stream query answered {result.num_rows} of the {len(batch)} lines from {batch.path}:{batch.first_line}")
            _check_alignment(result, batch, attribute_lines, task)
            yield batch, attribute_lines, result
    except (duckdb.Error, pa.ArrowException, OSError) as error:  # DuckDB's errors reach the result reader as Arrow's (OSError)
        query_failure = error
    finally:
        if results is not None:
            results.close()  # the connection takes no other query while a result is open
        connection.unregister("batch")
    if input_failure:
        raise input_failure[0]
    if query_failure is not None:
        _explain_query_failure(task, query_failure)
        raise query_failure


_RESULT_ROWS = 2048
"""Rows per result batch: one DuckDB vector, so the query reads no further ahead than the batch it answers."""


def _query_input(batch: LineBatch | None, attribute_lines: list[pa.Array | None]) -> pa.Table:
    """The ``batch`` table the stream query reads: each document line beside its attribute lines (None: an empty table)."""
    lines = batch.lines if batch is not None else pa.array([], pa.large_string())
    table = {"row": pa.array(np.arange(len(lines), dtype=np.int64)), "doc": lines}
    for index, lines_of_set in enumerate(attribute_lines):
        table[f"attr_{index}"] = lines_of_set if lines_of_set is not None else pa.nulls(len(lines), pa.large_string())
    return pa.table(table)


class _Rows:
    """Hands out exactly ``n`` rows at a time from a stream of Arrow arrays or record batches, as views
    of them (never a copy): fewer only where the stream ends."""

    def __init__(self, stream: Iterator) -> None:
        self._stream = stream
        self._buffer: list = []

    def peek(self) -> bool:
        """Whether any row is left (reads the next piece of the stream if none is buffered)."""
        while not self._buffer:
            piece = next(self._stream, None)
            if piece is None:
                return False
            self._buffer.append(piece)
        return True

    def take(self, n: int) -> list:
        pieces, needed = [], n
        while needed and self.peek():
            head = self._buffer[0]
            if len(head) <= needed:
                pieces.append(self._buffer.pop(0))
                needed -= len(head)
            else:
                pieces.append(head.slice(0, needed))
                self._buffer[0] = head.slice(needed)
                needed = 0
        return pieces


@cache
def _connection() -> duckdb.DuckDBPyConnection:
    """The process's DuckDB connection, shared by the shards it mixes.

    A fresh connection per shard faulted its working memory in again (a tenth of a mix's CPU time,
    most of it system time) and planned the stream query again (40 ms for the jq bench recipe).
    It runs one thread: the parallelism is the processes'. With two threads, a process mixing the
    differential tests' 12 streams in turn sometimes kept another document than the one it had read.
    """
    connection = duckdb.connect(config={"threads": 1})
    connection.execute(f"SET streaming_buffer_size = '{_RESULT_BUFFER_BYTES}B'")
    return connection


_RESULT_BUFFER_BYTES = 256 << 10
"""How many bytes of answers a stream query may queue before it stops reading input: about one batch's
answers (100-200 bytes a row). With DuckDB's default (10 MiB in DuckDB 2) it read ahead until tens of
thousands of documents were in memory beside their attribute lines, waiting to be answered: the bench's
20,000-document shards were read whole, and a process mixing an 80,000-document shard peaked at 810 MB
of RSS (now 523 MB). The mix bench also spends a fifth less system time."""


@cache
def _stream_query(connection: duckdb.DuckDBPyConnection, sql: str) -> duckdb.DuckDBPyRelation:
    """A stream's query, parsed and planned once; each run reads the ``batch`` registered at the time."""
    return connection.sql(sql)


def _aligned_batches(path: str, task: ShardTask) -> Iterator[tuple[LineBatch, list[pa.Array | None]]]:
    """Document line batches with the line-aligned slices of every attribute file."""
    stream = task.plan.stream
    codec = None if stream.compression.input is None else {"gzip": "gz", "zstd": "zst"}.get(stream.compression.input, stream.compression.input)
    cursors: list[_LineCursor | None] = []
    for name in stream.attributes:
        attribute_path = layout.attribute_path(path, name, document_dir=stream.document_dir)
        if os.path.exists(attribute_path):
            cursors.append(_LineCursor(attribute_path))
        elif task.allow_missing_attributes:
            cursors.append(None)
        else:
            raise InputError(
                f"attribute set {name!r} has no file for these documents (expected {attribute_path})",
                path=path,
                hint=f"run the tagger/deduper that writes {name!r}, fix streams[{task.plan.index}].attributes, "
                "or pass --allow-missing-attributes to mix without it",
            )
    lines_seen = 0
    for batch in iter_line_batches(path, codec=codec):
        lines_seen += len(batch)
        slices = []
        for cursor in cursors:
            if cursor is None:
                slices.append(None)
                continue
            lines = cursor.take(len(batch))
            if len(lines) < len(batch):
                raise InputError(
                    f"attribute file {cursor.path} has {cursor.lines_read} lines but the documents have at least {lines_seen}",
                    path=path,
                    line=batch.first_line + len(lines),
                    hint="attribute files must have one line per document, in the same order; re-run the tagger on this file",
                )
            slices.append(lines)
        yield batch, slices
    for cursor in cursors:
        if cursor is not None and cursor.has_more():
            raise InputError(
                f"attribute file {cursor.path} has more lines than the {lines_seen} documents",
                path=path,
                hint="attribute files must have one line per document; re-run the tagger on this file",
            )


class _LineCursor:
    """Hands out exactly ``n`` lines at a time from a file read in its own batches."""

    def __init__(self, path: str, batch_bytes: int = BATCH_BYTES) -> None:
        self.path = path
        self._lines = _Rows(batch.lines for batch in iter_line_batches(path, batch_bytes=batch_bytes))
        self.lines_read = 0

    def take(self, n: int) -> pa.Array | pa.ChunkedArray:
        """The next ``n`` lines (fewer at the end of the file), as views of the batches read: never a copy."""
        pieces = self._lines.take(n)
        self.lines_read += sum(map(len, pieces))
        return pieces[0] if len(pieces) == 1 else pa.chunked_array(pieces, pa.large_string())

    def has_more(self) -> bool:
        return self._lines.peek()


_JQ_FAILURE = re.compile(r"^(?:.*?Error: )?(?P<message>.*failed on the document) at row (?P<row>\d+)", re.S)


def _explain_query_failure(task: ShardTask, error: Exception) -> None:
    """Find the line the stream query failed on and raise an error naming it (returns if none fails alone).

    The streamed query cannot say which batch its failing row belongs to, so the shard's batches are
    queried again one by one; nothing is written meanwhile, and the shard's output is discarded anyway.
    """
    connection = _connection()
    for path in task.shard.inputs:
        for batch, attribute_lines in _aligned_batches(path, task):
            connection.register("batch", _query_input(batch, attribute_lines))
            try:
                connection.sql(task.plan.sql).to_arrow_table()
            except duckdb.Error as batch_error:
                failure = _JQ_FAILURE.match(str(batch_error))
                if failure:
                    raise InputError(failure.group("message"), path=batch.path, line=batch.first_line + int(failure.group("row"))) from None
                _diagnose(batch, attribute_lines, task, None)  # a line DuckDB cannot parse
                raise batch_error from None
            finally:
                connection.unregister("batch")


def _check_alignment(result: pa.Table, batch: LineBatch, attribute_lines: list, task: ShardTask) -> None:
    """Rows the query flags (misaligned ids, a missing ``attributes`` object or text) become an error naming the line."""
    problems = result.column("problem")
    if pa.compute.any(problems).as_py():
        _diagnose(batch, attribute_lines, task, pa.compute.index(problems, True).as_py())


def _diagnose(batch: LineBatch, attribute_lines: list, task: ShardTask, row: int | None) -> None:
    """Decode the offending line(s) in Python and raise an error that says what is wrong."""
    rows = range(len(batch)) if row is None else [row]
    stream = task.plan.stream
    documents = batch.lines.to_pylist()
    for index in rows:
        line = batch.first_line + index
        document = decode_object(documents[index], path=batch.path, line=line)
        if not isinstance(document.get("text"), str):
            raise InputError("document has no string 'text'", path=batch.path, line=line, hint="every document needs a string 'text' field")
        for set_index, lines in enumerate(attribute_lines):
            if lines is None:
                continue
            attribute_path = layout.attribute_path(batch.path, stream.attributes[set_index], document_dir=stream.document_dir)
            record = decode_object(lines[index].as_py(), path=attribute_path, line=line, hint="re-run the tagger that wrote this file")
            if not isinstance(record.get("attributes"), dict):
                raise InputError(
                    f"attribute line has no 'attributes' object (document {batch.path}:{line})",
                    path=attribute_path,
                    line=line,
                    hint="attribute lines look like {\"id\": ..., \"attributes\": {...}}",
                )
            if record.get("id") != document.get("id") or type(record.get("id")) is not type(document.get("id")):
                raise InputError(
                    f"mismatched ids: attribute id {msgspec.json.encode(record.get('id')).decode()} != document id "
                    f"{msgspec.json.encode(document.get('id')).decode()} ({batch.path}:{line})",
                    path=attribute_path,
                    line=line,
                    hint="the attribute file is not line-aligned with its documents; re-run the tagger on this file",
                )
    if row is not None:  # DuckDB flagged a row that Python finds fine: never silently continue
        raise InputError("line could not be checked", path=batch.path, line=batch.first_line + row)


def _count_batch(batch: LineBatch, result: pa.Table, task: ShardTask, counters: Counters) -> None:
    """Dry run: count what ``_mix_batch`` would keep, from the query's text lengths; only edited texts are decoded."""
    counters["documents"] = counters.get("documents", 0) + len(batch)
    report = impact.StreamCounters(counters, task.plan.index)
    report.count_filters(result)
    kept_rows = np.flatnonzero(result.column("keep").to_numpy(zero_copy_only=False))
    text_bytes = result.column("text_bytes").to_numpy().take(kept_rows)
    min_length = task.plan.stream.output.min_text_length or 0
    stripped = result.column("stripped_text_bytes").to_numpy().take(kept_rows) if min_length else None
    edits_by_rule = _collect_edits(result, kept_rows, batch, task) if len(kept_rows) else None
    if edits_by_rule is not None:
        edits, edited, rule_of_edit = edits_by_rule
        documents = _decode_texts(line_bytes(batch.lines.take(pa.array(kept_rows[edited]))))
        texts = pa.array([document.text for document in documents], pa.large_string())
        replaced = report.count_span_rules(texts, edits, rule_of_edit, len(task.plan.span_rules))
        text_bytes[edited] = pc.binary_length(replaced.cast(pa.large_binary())).to_numpy()
        if stripped is not None:
            stripped[edited] = _trimmed_utf8_lengths(replaced)
    too_short = stripped < min_length if stripped is not None else np.zeros(len(kept_rows), dtype=bool)
    report.count_kept(text_bytes, too_short)


def _mix_batch(batch: LineBatch, attribute_lines: list, result: pa.Table, task: ShardTask, writer, counters: Counters) -> None:
    stream = task.plan.stream
    keep = result.column("keep").to_numpy(zero_copy_only=False)
    kept_rows = np.flatnonzero(keep)
    counters["documents"] = counters.get("documents", 0) + len(batch)
    counters["bytes_in"] = counters.get("bytes_in", 0) + batch.lines.nbytes
    if not len(kept_rows):
        return
    try:
        documents = _decode_documents(batch.lines.take(pa.array(kept_rows)))
    except msgspec.DecodeError:  # a query that reads no document field parses none
        _diagnose(batch, attribute_lines, task, None)
        raise
    bad = next((i for i, document in enumerate(documents) if type(document) is not dict or type(document.get("text")) not in _TEXTS), None)
    if bad is not None:  # the query checks the text of dropped documents only
        _diagnose(batch, attribute_lines, task, int(kept_rows[bad]))

    min_length = stream.output.min_text_length or 0
    too_short = [False] * len(documents)
    unedited = range(len(documents))
    edits_by_rule = _collect_edits(result, kept_rows, batch, task)
    if edits_by_rule is not None:
        edits, edited, rule_of_edit = edits_by_rule
        texts = _texts_array([documents[i]["text"] for i in edited])
        replaced = apply_spans(texts, edits)
        changed = pc.not_equal(replaced, texts).to_numpy(zero_copy_only=False)
        counters["documents_span_replaced"] = counters.get("documents_span_replaced", 0) + int(np.count_nonzero(changed))
        if min_length:
            for document_index, short in zip(edited, (_trimmed_utf8_lengths(replaced) < min_length).tolist()):
                too_short[document_index] = short
            unedited = sorted(set(unedited).difference(edited))
        for document_index, literal in zip(edited, json_string_literals(replaced)):  # the encoder copies them as they are
            documents[document_index]["text"] = literal
    if min_length:
        for position in unedited:
            too_short[position] = _text_shorter_than(documents[position]["text"], min_length)

    discard = set(stream.output.discard_fields)
    merge_attributes = bool(stream.attributes) and "attributes" not in discard
    attribute_records = (
        [[_decode(line) for line in lines.take(pa.array(kept_rows)).to_pylist()] if lines is not None else None for lines in attribute_lines]
        if merge_attributes
        else []
    )
    basename = os.path.basename(batch.path)
    line_numbers = (kept_rows + batch.first_line).tolist()
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
            counters["documents_too_short"] = counters.get("documents_too_short", 0) + 1
            continue
        metadata = document.get("metadata")
        if not isinstance(metadata, dict):
            metadata = document["metadata"] = {}
        metadata["provenance"] = f"{basename}:{line_numbers[position]}"
        out.append(document)
    counters["documents_kept"] = counters.get("documents_kept", 0) + len(out)
    if out:
        writer.write(_encode_lines(out))


_NO_SPANS = pa.array(["[]", "null"])
_TEXTS = (str, msgspec.Raw)


def _decode_documents(lines: pa.LargeStringArray) -> list[dict]:
    """Document lines as dicts whose texts stay the JSON literals they were read as (``msgspec.Raw``,
    which the encoder copies), wherever a literal is the one the encoder would write.

    Decoding each text into a Python string, only to turn it into UTF-8 again for Arrow or the encoder,
    was most of the time of reading documents: with the texts left alone, an 8 MiB batch of the mix bench
    decodes in 7 ms instead of 10, and the bench's batches mix in a tenth less time (gzip aside). Only a
    batch whose lines all have exactly dolma's standard fields is decoded this way (any other into plain
    dicts). A text that is no string, and one whose line has a ``\\u`` or ``\\/`` escape (the encoder
    writes the character itself), are decoded.
    """
    data = line_bytes(lines)
    try:
        standard = _decode_standard_lines(data)
    except msgspec.ValidationError:
        return _decode_lines(data)
    documents = list(map(msgspec.structs.asdict, standard))
    for row in _rows_with_rewritten_escapes(lines).tolist():
        documents[row]["text"] = _decode(documents[row]["text"])
    for document in documents:
        text = document["text"]
        if type(text) is msgspec.Raw and memoryview(text)[0] != _QUOTE:  # no string: reported by the caller
            document["text"] = _decode(text)
    return documents


def _rows_with_rewritten_escapes(lines: pa.LargeStringArray) -> np.ndarray:
    """The lines with a backslash before a ``u`` or a ``/`` (a ``\\u`` or ``\\/`` escape, or an escaped backslash):
    one numpy pass, where searching each text took longer than decoding it (web text has a backslash escape every few lines)."""
    offsets = line_offsets(lines)
    data = np.frombuffer(line_bytes(lines), dtype=np.uint8)
    backslashes = np.flatnonzero(data[:-1] == _BACKSLASH)
    escaped = data[backslashes + 1]
    rewritten = backslashes[(escaped == ord("u")) | (escaped == ord("/"))]
    return np.unique(np.searchsorted(offsets[1:] - offsets[0], rewritten, side="right"))


def _texts_array(texts: list[str | msgspec.Raw]) -> pa.LargeStringArray:
    """Texts as one Arrow array. A literal kept by ``_decode_documents`` has only the escapes
    ``\\" \\\\ \\b \\f \\n \\r \\t``, which Python's byte-string escapes share, so it is unescaped byte for byte,
    never through a Python string."""
    pieces = [_unescape(memoryview(text)[1:-1])[0] if type(text) is msgspec.Raw else text.encode() for text in texts]
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)), out=offsets[1:])
    return pa.LargeStringArray.from_buffers(len(pieces), pa.py_buffer(offsets), pa.py_buffer(b"".join(pieces)))  # UTF-8: read as such


_unescape = codecs.escape_decode
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_PLAIN = frozenset(range(0x21, 0x7F)) - {_BACKSLASH}
"""Bytes that, as the first or last of a literal's text, are that text's first or last character and no whitespace."""


def _text_shorter_than(text: str | msgspec.Raw, min_length: int) -> bool:
    """``_shorter_than`` for a text or its JSON literal, which is decoded only when its ends or its length leave a doubt.

    In a literal kept by ``_decode_documents`` every escape is two bytes for one, so its text has at
    least half its bytes, and trimming removes nothing when both ends are plain characters.
    """
    if type(text) is msgspec.Raw:
        literal = bytes(text)
        if len(literal) > 3 and (len(literal) - 2) // 2 >= min_length and literal[1] in _PLAIN and literal[-2] in _PLAIN and literal[-3] != _BACKSLASH:
            return False
        text = _decode(literal)
    return _shorter_than(text, min_length)


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))  # isascii() reads a flag: no copy


_WHITESPACE = frozenset(UNICODE_WHITESPACE)


def _trimmed_utf8_lengths(texts: pa.Array) -> np.ndarray:
    """The UTF-8 length of each text trimmed of Unicode whitespace (``min_text_length``'s measure)."""
    return pc.binary_length(pc.utf8_trim(texts, characters=UNICODE_WHITESPACE).cast(pa.large_binary())).to_numpy()


def _shorter_than(text: str, min_length: int) -> bool:
    """Whether ``text`` trimmed of Unicode whitespace has fewer than ``min_length`` UTF-8 bytes.

    Copies nothing for the usual text, whose ends are no whitespace and whose code points alone
    reach ``min_length`` (a code point is at least one byte).
    """
    if not text or text[0] in _WHITESPACE or text[-1] in _WHITESPACE:
        text = text.strip(UNICODE_WHITESPACE)
    return len(text) < min_length and _utf8_length(text) < min_length


def _collect_edits(result: pa.Table, kept_rows: np.ndarray, batch: LineBatch, task: ShardTask) -> tuple[SpanEdits, list[int], np.ndarray] | None:
    """Turn each rule's selected spans (JSON) into score-filtered edits, rule by rule.

    Returns the edits (rows local to the edited texts), the kept-row positions of the edited
    texts, and the span rule of each edit.
    """
    rows, starts, ends, template_ids, rules = [], [], [], [], []
    templates: dict[tuple[str, ...], int] = {}
    for rule_index, rule in enumerate(task.plan.span_rules):
        column = result.column(f"span_{rule_index}").take(pa.array(kept_rows))
        # most documents select no span: decode only the others
        selecting = np.flatnonzero(pc.and_(pc.is_valid(column), pc.invert(pc.is_in(column, value_set=_NO_SPANS))).to_numpy(zero_copy_only=False))
        counts, flat = _parse_spans(column.take(pa.array(selecting)).to_pylist(), kept_rows[selecting], batch, task, rule_index)
        if not len(flat):
            continue
        row = np.repeat(selecting, counts)
        selected = (flat[:, 2] >= rule.min_score) & (flat[:, 2] < rule.max_score)
        row, flat = row[selected], flat[selected]
        if rule.template is not None:
            ids = np.full(len(row), templates.setdefault(rule.template, len(templates)), dtype=np.int64)
        else:
            values = result.column(f"replacement_{rule_index}").take(pa.array(kept_rows)).to_pylist()
            ids = np.array([templates.setdefault((_jq_replacement(values[r], batch, kept_rows[r], task, rule_index),), len(templates)) for r in row], dtype=np.int64)
        rows.append(row)
        starts.append(flat[:, 0].astype(np.int64))
        ends.append(flat[:, 1].astype(np.int64))
        template_ids.append(ids)
        rules.append(np.full(len(row), rule_index, dtype=np.int64))
    if not rows:
        return None
    row = np.concatenate(rows)
    edited = np.unique(row)
    local = np.searchsorted(edited, row)
    edits = SpanEdits(local, np.concatenate(starts), np.concatenate(ends), np.concatenate(template_ids), list(templates))
    return edits, edited.tolist(), np.concatenate(rules)


def _jq_replacement(value, batch: LineBatch, row: int, task: ShardTask, rule_index: int) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"the jq replacement of streams[{task.plan.index}].span_replacement[{rule_index}] gave {value!r}, not a string",
            path=batch.path,
            line=batch.first_line + int(row),
        )
    return value


def _parse_spans(column: list, kept_rows: np.ndarray, batch: LineBatch, task: ShardTask, rule_index: int) -> tuple[np.ndarray, np.ndarray]:
    """Decode selected span lists into the number of spans of each row and one ``(n, 3)`` array of them.

    A selector matching several lists yields their concatenation. Anything but ``[start, end,
    score]`` triples with ``0 <= start <= end`` is an error that names the line (upstream panics
    and exits 0).
    """
    joined = b"[" + b",".join(value.encode() if value is not None else b"null" for value in column) + b"]"
    try:
        decoded = [spans or [] for spans in _decode_spans(joined)]
    except msgspec.ValidationError:
        decoded = [_parse_spans_slow(value, batch, kept_rows[i], task, rule_index) for i, value in enumerate(column)]
    counts = np.fromiter(map(len, decoded), dtype=np.int64, count=len(decoded))
    values = itertools.chain.from_iterable(itertools.chain.from_iterable(decoded))  # flattened in C, not span by span
    flat = np.fromiter(values, dtype=np.float64, count=3 * int(counts.sum())).reshape(-1, 3)
    bad = np.flatnonzero((flat[:, 0] < 0) | (flat[:, 1] < flat[:, 0]))
    if len(bad):
        i = int(np.searchsorted(np.cumsum(counts), bad[0], side="right"))
        span = decoded[i][bad[0] - int(counts[:i].sum())]
        _bad_span(list(span), batch, kept_rows[i], task, rule_index, "needs 0 <= start <= end")
    return counts, flat


def _parse_spans_slow(value: str | None, batch: LineBatch, row: int, task: ShardTask, rule_index: int) -> list:
    if value is None:
        return []
    selected = _decode(value)
    if selected is None:
        return []
    if not isinstance(selected, list):
        _bad_span(selected, batch, row, task, rule_index, "expected a list of [start, end, score] spans or null")
    if selected and all(isinstance(item, list) and item and all(isinstance(inner, list) for inner in item) for item in selected):
        selected = [span for item in selected for span in item]  # several matched span lists
    spans = []
    for span in selected:
        if (
            not isinstance(span, list)
            or len(span) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in span[:2])
            or not isinstance(span[2], (int, float))
            or isinstance(span[2], bool)
        ):
            _bad_span(span, batch, row, task, rule_index, "expected [start, end, score] with integer offsets")
        spans.append(tuple(span))
    return spans


def _bad_span(span, batch: LineBatch, row: int, task: ShardTask, rule_index: int, expected: str):
    rule = task.plan.stream.span_replacement[rule_index]
    raise InputError(
        f"bad span {msgspec.json.encode(span).decode()} selected by {rule.span!r}: {expected}",
        path=batch.path,
        line=batch.first_line + int(row),
        hint=f"check the attribute that streams[{task.plan.index}].span_replacement[{rule_index}].span points at",
    )


def _prepare_outputs(config: MixerConfig) -> None:
    """Create every output folder up front, so an unwritable path fails before any work."""
    for index, stream in enumerate(config.streams):
        try:
            os.makedirs(stream.output.path, exist_ok=True)
            probe = os.path.join(stream.output.path, f".dolma-sql-write-test-{os.getpid()}")
            with open(probe, "wb"):
                pass
            os.remove(probe)
        except OSError as error:
            raise ConfigError(
                f"output folder {stream.output.path!r} is not writable ({error.strerror or error})",
                path=f"streams[{index}].output.path",
                hint="point output.path at a folder you can write to",
            ) from None


@dataclass
class MixResult:
    totals: Counters = field(default_factory=dict)
    shards: int = 0


def mix(
    config: MixerConfig,
    *,
    allow_missing_attributes: bool = False,
    warn: Callable[[str], None] = lambda message: None,
    dry_run: bool = False,
    quiet: bool = False,
    executor: Executor | None = None,
) -> MixResult:
    """Run (or, with ``dry_run``, only count) a validated recipe.

    By default the shards run on ``config.processes`` processes, the waiting caller being one of
    them (one worker fewer to spawn); ``executor`` can be one started earlier (see ``dolma-sql mix``).
    """
    plans = compile_recipe(config, dry_run=dry_run)
    work = plan_shards(plans, config, warn=warn)
    if not dry_run:
        _prepare_outputs(config)
    tasks = [ShardTask(plan, shard, allow_missing_attributes, dry_run) for plan, shard in work]
    executor = executor or LocalExecutor(config.processes, caller_works=True)
    totals = run_units(run_shard, tasks, executor=executor, label="dry run" if dry_run else "mix", quiet=quiet)
    return MixResult(totals=totals, shards=len(tasks))

