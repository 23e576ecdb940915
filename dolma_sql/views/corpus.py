"""Finding a corpus: its document files, their attribute sets and keys, and the document columns to expose."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from dolma_sql.errors import ConfigError, DolmaSqlError
from dolma_sql.formats.lines import LineBatch, decode_object, head_lines, iter_line_batches, raise_first_malformed
from dolma_sql.layout import attribute_path
from dolma_sql.runtime.progress import warn
from dolma_sql.sql import load_sql, render
from dolma_sql.storage import expand_globs, urls


DOCUMENT_FIELDS = {
    "id": "VARCHAR",
    "text": "VARCHAR",
    "source": "VARCHAR",
    "added": "VARCHAR",
    "created": "VARCHAR",
    "version": "VARCHAR",
    "metadata": "JSON",
}
"""dolma's document fields and their column types; other top-level fields become JSON columns."""

VIEW_COLUMNS = ("id", "file", "row")
"""Columns of the attributes view that attribute keys must not shadow."""

HEAD_BYTES = 256 << 10
"""How much of a file (decompressed) is read to find its keys or fields, beyond the first attribute file, read whole."""


@dataclass(frozen=True)
class AttributeKey:
    """One key of an attribute set and the column it becomes: ``spans``, ``number`` or ``json``."""

    name: str
    kind: str
    column: str


@dataclass(frozen=True)
class AttributeSet:
    """``attributes/<name>/…``: one file per document file, in the same order."""

    name: str
    files: tuple[str, ...]
    keys: tuple[AttributeKey, ...]


@dataclass(frozen=True)
class Corpus:
    """Absolute document paths, their attribute sets, and the document columns to expose."""

    documents: tuple[str, ...]
    attribute_sets: tuple[AttributeSet, ...]
    document_columns: tuple[tuple[str, str], ...]


def discover(document_globs: list[str], attribute_names: list[str] | None = None, *, document_dir: str = "documents") -> Corpus:
    """Find the documents, their attribute sets (all sets beside them when none are named), and their keys.

    A set's keys and value kinds come from all of its first file and the first ``HEAD_BYTES`` of
    every later one, so start-up stays cheap on large corpora: a key that first appears deeper
    than that into a later file is not a column of ``attributes`` (``spans`` still has it).
    """
    documents = tuple(_absolute(path) for path in expand_globs(document_globs, config_path="--documents"))
    names = attribute_names if attribute_names is not None else _sets_beside(documents[0], document_dir)
    connection = duckdb.connect()
    found: dict[str, tuple[tuple[str, ...], list[tuple[str, str]]]] = {}
    for name in names:
        files = tuple(attribute_path(doc, name, document_dir=document_dir) for doc in documents)
        missing = [(doc, attr) for doc, attr in zip(documents, files) if not urls.isfile(attr)]
        if missing and attribute_names is None:  # found beside the first file only: the views leave it out
            warn(f"attribute set {name!r} has no file for {len(missing)} of the {len(documents)} document files (first: {missing[0][1]}), so it is left out")
            continue
        if missing:
            others = [other for other in names if other != name]
            raise ConfigError(
                f"attribute set {name!r} has no file {missing[0][1]} for documents file {missing[0][0]}",
                path="--attributes",
                hint=f"tag every document file for {name!r} (dolma-sql tag), or leave it out" + (f" (--attributes {','.join(others)})" if others else ""),
            )
        found[name] = files, _key_kinds(connection, files)
    columns = _column_names({name: [key for key, _ in keys] for name, (_, keys) in found.items()})
    sets = [
        AttributeSet(name, files, tuple(AttributeKey(key, kind, columns[name, key]) for key, kind in keys)) for name, (files, keys) in found.items()
    ]
    return Corpus(documents, tuple(sets), _document_columns(documents[0]))


def _column_names(keys_by_set: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """The attributes view's column for each (set, key): the key, or ``<set>__<key>`` when another set
    writes the same key (or it is ``id``, ``file`` or ``row``), so no set's values hide another's."""
    writers = Counter(key for keys in keys_by_set.values() for key in keys)
    columns = {
        (name, key): key if writers[key] == 1 and key not in VIEW_COLUMNS else f"{name}__{key}" for name, keys in keys_by_set.items() for key in keys
    }
    clashing = [column for column, count in Counter(columns.values()).items() if count > 1]
    if clashing:
        raise ConfigError(
            f"attribute column {clashing[0]!r} would hold two different attributes",
            path="--attributes",
            hint="query the sets in separate runs (--attributes NAME), or use the spans view, whose rows name their set",
        )
    return columns


def _key_kinds(connection: duckdb.DuckDBPyConnection, files: tuple[str, ...]) -> list[tuple[str, str]]:
    """A set's keys in order of first appearance, each with the kind of its values (``spans``, ``number`` or ``json``),
    from the lines of :func:`_key_sample`, read a batch at a time (a whole first file is never held at once)."""
    merged: dict[str, tuple[int, bool, bool]] = {}  # key -> its first position, whether all its values are spans, numbers
    position = 0
    for batch in _key_sample(files):
        connection.register("key_sample", pa.table({"position": np.arange(position, position + len(batch.lines), dtype=np.int64), "line": batch.lines}))
        position += len(batch.lines)
        try:
            kinds = connection.sql(render(load_sql("views_keys"))).fetchall()
        except duckdb.Error as error:
            raise_first_malformed(batch)  # the malformed line, named as the other commands name it
            raise DolmaSqlError(str(error)) from None
        finally:
            connection.unregister("key_sample")
        for key, first, is_spans, is_number in kinds:
            seen = merged.get(key, (first, True, True))
            merged[key] = (min(seen[0], first), seen[1] and is_spans, seen[2] and is_number)
    ordered = sorted(merged.items(), key=lambda item: (item[1][0], item[0]))
    return [(key, "spans" if is_spans else "number" if is_number else "json") for key, (_, is_spans, is_number) in ordered]


def _key_sample(files: tuple[str, ...]) -> Iterator[LineBatch]:
    """The attribute lines keys are read from, in order: the whole first file, then the head of each later one."""
    yield from iter_line_batches(files[0])
    for path in files[1:]:
        head = head_lines(path, HEAD_BYTES)
        if head is not None:
            yield head


def _sets_beside(first_document: str, document_dir: str) -> list[str]:
    """Every attribute set that has a file for the first document file."""
    probe = attribute_path(first_document, "\0", document_dir=document_dir)
    root = probe[: probe.index("\0")]
    return sorted(match[len(root) :].split("/")[0] for match in urls.glob(probe.replace("\0", "*")))


def _absolute(path: str) -> str:
    """A local path made absolute (views saved in a database must not depend on the current folder); a URL as it is."""
    return os.path.abspath(urls.local_path(path)) if urls.is_local(path) else path


def _document_columns(first_document: str) -> tuple[tuple[str, str], ...]:
    """dolma's fields, then any other top-level field of the first ``HEAD_BYTES`` of the first file, as JSON."""
    seen: dict[str, None] = {}
    batch = head_lines(first_document, HEAD_BYTES)
    for offset, line in enumerate(batch.lines.to_pylist() if batch is not None else []):
        seen.update(dict.fromkeys(decode_object(line, path=first_document, line=batch.first_line + offset)))
    extra = [(name, "JSON") for name in seen if name not in DOCUMENT_FIELDS and name not in VIEW_COLUMNS]
    return (*DOCUMENT_FIELDS.items(), *extra)
