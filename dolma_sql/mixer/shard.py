"""Reading one shard: its document batches beside their attribute lines, and the stream query's answers.

The query runs once per shard, over a stream of all its batches, and its result is cut back into
the batches it answers. Rows the query flags (a document without a string text, an attribute line
that does not line up) and query failures become errors naming the file and line.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterator
from functools import cache
from typing import BinaryIO

import duckdb
import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql import layout, storage
from dolma_sql.engine import sealed_connection
from dolma_sql.errors import InputError
from dolma_sql.formats.lines import LineBatch, decode_object, iter_line_batches
from dolma_sql.mixer.finite import check_finite
from dolma_sql.mixer.plan import ShardTask, missing_attribute_file
from dolma_sql.runtime import progress

DOCUMENT_BATCH_BYTES = 3 << 20
"""Bytes of document lines mixed at a time: well under the readers' shared batch, because a batch's documents
are held as lines, as Python objects and re-encoded at once, beside a batch of every attribute set; much
smaller batches repeat the per-batch work (span edits, compression calls) often enough to cost CPU
(docs/benchmarks.md, memory per worker)."""

ATTRIBUTE_BATCH_BYTES = 4 << 20
"""Bytes of each attribute file read at a time: half the readers' shared batch, because a shard holds
a batch of every attribute set at once beside the documents', and the cursor's batch is cut into the
documents' row ranges anyway, so a smaller one costs little CPU (docs/benchmarks.md, memory per worker)."""

RESULT_ROWS = 2048
"""Rows per result batch: one DuckDB vector, so the query reads no further ahead than the batch it answers."""

RESULT_BUFFER_BYTES = 256 << 10
"""How many bytes of answers a stream query may queue before it stops reading input: about one batch's
answers (100-200 bytes a row). With DuckDB's default it reads ahead until tens of thousands of documents
wait in memory beside their attribute lines (see docs/mix.md for the memory figures)."""


def queried_batches(task: ShardTask) -> Iterator[tuple[LineBatch, list[pa.Array | None], pa.Table]]:
    """Every batch of the shard's inputs, its attribute lines, and the stream query's result on them.

    One query over a stream of all the batches, because planning it costs as much as querying a
    few thousand documents. DuckDB reads the stream as its answers are taken (see
    :data:`RESULT_BUFFER_BYTES`), so it holds a batch or two at a time.
    """
    connection = process_connection()
    unanswered: collections.deque[tuple[LineBatch, list[pa.Array | None]]] = collections.deque()
    input_failure: list[Exception] = []

    def inputs() -> Iterator[pa.RecordBatch]:
        try:
            for path in task.shard.inputs:
                for batch, attribute_lines in aligned_batches(path, task, count_progress=True):
                    unanswered.append((batch, attribute_lines))
                    yield from query_input(batch, attribute_lines).to_batches()
        except Exception as error:  # raised below with its own type, not as a DuckDB error about a Python stream
            input_failure.append(error)

    schema = query_input(None, [None] * len(task.plan.stream.attributes)).schema
    connection.register("batch", pa.RecordBatchReader.from_batches(schema, inputs()))
    results = query_failure = None
    try:
        results = _stream_query(connection, task.plan.sql).to_arrow_reader(RESULT_ROWS)
        answered = Rows(iter(results))
        while not input_failure and (unanswered or answered.peek()):  # peeking lets the query read the next batch
            batch, attribute_lines = unanswered.popleft()
            result = pa.Table.from_batches(answered.take(len(batch)), results.schema)
            if input_failure:
                break
            if result.num_rows != len(batch):
                raise RuntimeError(f"the stream query answered {result.num_rows} of the {len(batch)} lines from {batch.path}:{batch.first_line}")
            _check_alignment(result, batch, attribute_lines, task)
            progress.advance(documents=len(batch))
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


def query_input(batch: LineBatch | None, attribute_lines: list[pa.Array | None]) -> pa.Table:
    """The ``batch`` table the stream query reads: each document line beside its attribute lines (None: an empty table)."""
    lines = batch.lines if batch is not None else pa.array([], pa.large_string())
    table = {"row": pa.array(np.arange(len(lines), dtype=np.int64)), "doc": lines}
    for index, lines_of_set in enumerate(attribute_lines):
        table[f"attr_{index}"] = lines_of_set if lines_of_set is not None else pa.nulls(len(lines), pa.large_string())
    return pa.table(table)


class Rows:
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
def process_connection() -> duckdb.DuckDBPyConnection:
    """The process's DuckDB connection, shared by the shards it mixes.

    A fresh connection per shard faulted its working memory in again and planned the stream query
    again. It runs one thread: the parallelism is the processes'. With two threads, a process mixing
    the differential tests' 12 streams in turn sometimes kept another document than the one it had read.
    """
    return sealed_connection(threads=1, settings={"streaming_buffer_size": f"{RESULT_BUFFER_BYTES}B"})


@cache
def _stream_query(connection: duckdb.DuckDBPyConnection, sql: str) -> duckdb.DuckDBPyRelation:
    """A stream's query, parsed and planned once; each run reads the ``batch`` registered at the time."""
    return connection.sql(sql)


def aligned_batches(path: str, task: ShardTask, *, count_progress: bool = False) -> Iterator[tuple[LineBatch, list[pa.Array | None]]]:
    """Document line batches with the line-aligned slices of every attribute file (``count_progress``:
    the documents' bytes count toward the run's progress)."""
    stream = task.plan.stream
    attribute_paths = [layout.attribute_path(path, name, document_dir=stream.document_dir) for name in stream.attributes]
    documents, *attribute_files = _open_together([path, *attribute_paths], task.input_staging)
    cursors: list[LineCursor | None] = []
    for name, attribute_path, raw in zip(stream.attributes, attribute_paths, attribute_files):
        if raw is not None:
            cursors.append(LineCursor(attribute_path, staging=task.input_staging, opened=raw))
        elif task.allow_missing_attributes:
            cursors.append(None)
        else:
            raise missing_attribute_file(name, attribute_path, path, task.plan.index)
    lines_seen = 0
    for batch in iter_line_batches(
        path, codec=stream.input_codec(), batch_bytes=DOCUMENT_BATCH_BYTES, count_progress=count_progress, staging=task.input_staging,
        opened=documents,
    ):
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


def _open_together(paths: list[str], staging: str | None) -> list[BinaryIO | None]:
    """A shard input's documents and attribute files opened at once, ``None`` for each that is missing
    (a missing documents file is then opened again by the reader, which names it in its error)."""
    try:
        return storage.open_inputs_if_exist(paths, staging=staging, sequential=True)
    except OSError as error:
        raise InputError(f"cannot open: {error.strerror or error}", path=error.filename or paths[0]) from error


class LineCursor:
    """Hands out exactly ``n`` lines at a time from an attribute file read in its own batches (each checked
    for NaN and Infinity: :mod:`.finite`)."""

    def __init__(self, path: str, batch_bytes: int = ATTRIBUTE_BATCH_BYTES, *, staging: str | None = None, opened: BinaryIO | None = None) -> None:
        self.path = path
        batches = iter_line_batches(path, batch_bytes=batch_bytes, staging=staging, opened=opened)
        self._lines = Rows(check_finite(batch).lines for batch in batches)
        self.lines_read = 0

    @classmethod
    def opened(cls, path: str, *, staging: str | None = None) -> LineCursor | None:
        """A cursor over the file at ``path``, or ``None`` when there is none (found by opening it)."""
        try:
            raw = storage.open_input_if_exists(path, staging=staging, sequential=True)
        except OSError as error:
            raise InputError(f"cannot open: {error.strerror or error}", path=path) from error
        return None if raw is None else cls(path, staging=staging, opened=raw)

    def take(self, n: int) -> pa.Array | pa.ChunkedArray:
        """The next ``n`` lines (fewer at the end of the file), as views of the batches read: never a copy."""
        pieces = self._lines.take(n)
        self.lines_read += sum(map(len, pieces))
        return pieces[0] if len(pieces) == 1 else pa.chunked_array(pieces, pa.large_string())

    def has_more(self) -> bool:
        return self._lines.peek()


JQ_FAILURE_HINT = (
    "jq stops, as upstream's does, at error(...) or where a step meets a value it cannot take (`.name` on an array or "
    "a string, `.[0]` on an object, arithmetic on null); guard such a step with `?` (`.name?`) or a default (`// 0`)"
)

QUERY_FAILURE_HINT = (
    "a SQL filter runs on every document: guard what can fail on some of them, e.g. TRY_CAST(x AS INTEGER) (NULL where x is "
    "no integer) instead of CAST, or a CASE that tests the value first"
)

_JQ_FAILURE = re.compile(r"^(?:.*?Error: )?(?P<message>.*failed on the document) at row (?P<row>\d+)", re.S)


def _explain_query_failure(task: ShardTask, error: Exception) -> None:
    """Find the line the stream query failed on and raise an error naming it (returns if none fails alone).

    The streamed query cannot say which batch its failing row belongs to, so the shard's batches are
    queried again one by one; nothing is written meanwhile, and the shard's output is discarded anyway.
    """
    for path in task.shard.inputs:
        for batch, attribute_lines in aligned_batches(path, task):
            table = query_input(batch, attribute_lines)
            batch_error = _query_error(task, table)
            if batch_error is None:
                continue
            failure = _JQ_FAILURE.match(str(batch_error))
            if failure:
                line = batch.first_line + int(failure.group("row"))
                raise InputError(failure.group("message"), path=batch.path, line=line, hint=JQ_FAILURE_HINT) from None
            diagnose(batch, attribute_lines, task, None)  # a line DuckDB cannot parse
            row = _first_failing_row(task, table)
            message = str(batch_error).splitlines()[0]  # the rest quotes the document
            where = f"streams[{task.plan.index}]"
            raise InputError(f"the query of {where} failed on this document: {message}", path=batch.path, line=batch.first_line + row, hint=QUERY_FAILURE_HINT)


def _query_error(task: ShardTask, table: pa.Table) -> duckdb.Error | None:
    """The error of the stream query over ``table`` (None when it runs)."""
    connection = process_connection()
    connection.register("batch", table)
    try:
        connection.sql(task.plan.sql).to_arrow_table()
    except duckdb.Error as error:
        return error
    finally:
        connection.unregister("batch")
    return None


def _first_failing_row(task: ShardTask, table: pa.Table) -> int:
    """The first row of ``table`` on which the stream query fails alone, by bisection (the rows fail independently)."""
    failing, start = table.num_rows, 0
    while failing - start > 1:
        middle = (start + failing) // 2
        if _query_error(task, table.slice(start, middle - start)) is not None:
            failing = middle
        else:
            start = middle
    return start


def _check_alignment(result: pa.Table, batch: LineBatch, attribute_lines: list, task: ShardTask) -> None:
    """Rows the query flags (misaligned ids, a missing ``attributes`` object or text) become an error naming the line."""
    problems = result.column("problem")
    if pc.any(problems).as_py():
        diagnose(batch, attribute_lines, task, pc.index(problems, True).as_py())


def diagnose(batch: LineBatch, attribute_lines: list, task: ShardTask, row: int | None) -> None:
    """Decode the offending line (``row``, or every line when ``None``) in Python and raise an error that says what is wrong."""
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
            document_id, attribute_id = document.get("id"), record.get("id")  # missing and null alike, as dolma matches them
            if attribute_id == document_id and type(attribute_id) is type(document_id):
                continue
            if document_id is None:
                raise InputError(
                    f"document has no 'id', but its attribute line has id {msgspec.json.encode(attribute_id).decode()} ({attribute_path}:{line})",
                    path=batch.path,
                    line=line,
                    hint="the attribute file is not line-aligned with its documents; re-run the tagger on this file",
                )
            raise InputError(
                f"mismatched ids: attribute id {msgspec.json.encode(attribute_id).decode()} != document id "
                f"{msgspec.json.encode(document_id).decode()} ({batch.path}:{line})",
                path=attribute_path,
                line=line,
                hint="the attribute file is not line-aligned with its documents; re-run the tagger on this file",
            )
    if row is not None:  # DuckDB flagged a row that Python finds fine: never silently continue
        raise InputError("line could not be checked", path=batch.path, line=batch.first_line + row)
