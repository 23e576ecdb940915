"""Extraction, the parallel phase (one unit per input file): read the documents, split paragraphs,
fingerprint every key, and write the file's intermediate tables in the order dolma checks its keys."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.bloom import first_occurrences
from dolma_sql.deduper.fingerprints import Fingerprinter, fingerprinter
from dolma_sql.deduper.intermediates import IDS_TABLE, hashes_name, remove_tables, table_path, table_prefix, write_table
from dolma_sql.deduper.keys import BatchKeys, batch_keys
from dolma_sql.deduper.plan import FileJob, Settings, exact_partitions, ledger_options
from dolma_sql.formats.attributes import json_strings
from dolma_sql.formats.documents import iter_document_batches, single_array
from dolma_sql.runtime import Executor, Ledger, run_units


@dataclass(frozen=True)
class ExtractUnit:
    """One input file to extract; ``key`` is its keys table (the unit's main output), ``size`` its bytes,
    ``partitions`` the number of hash partitions its fingerprints are split into (exact mode)."""

    key: str
    size: int
    path: str
    prefix: str
    settings: Settings
    codec: str | None = None
    partitions: int = 1

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.path,)


def extract_unit(job: FileJob, work: str, settings: Settings, codec: str | None, partitions: int = 1) -> ExtractUnit:
    prefix = table_prefix(work, job.path, job.size)
    return ExtractUnit(table_path(prefix, "keys"), job.size, job.path, prefix, settings, codec, partitions)


def extract_files(
    config: DeduperConfig,
    settings: Settings,
    jobs: list[FileJob],
    indexes: list[int],
    work: str,
    executor: Executor,
    *,
    on_file: Callable[[ExtractUnit, FileJob], None] | None = None,
    quiet: bool = False,
) -> None:
    """Extract the files ``indexes`` of ``jobs`` into ``work``, skipping those its ledger has from an earlier run.

    With ``on_file``, each file is handed to it in the parent, in input order, as soon as it and every
    file before it are extracted (so resolving overlaps with extracting); its tables are removed after.
    """
    codec = config.compression.codecs()[0]
    units = [extract_unit(jobs[index], work, settings, codec, exact_partitions(config)) for index in indexes]
    ledger = Ledger("dedupe-extract", ledger_options(config))
    ledger.track_inputs({unit.key: unit.inputs for unit in units})
    extracted = ledger.finished(unit.key for unit in units)
    in_order = _InOrder(units, [jobs[index] for index in indexes], ledger, on_file)
    for unit in units:
        if unit.key in extracted:
            in_order.extracted(unit)
    todo = [unit for unit in units if unit.key not in extracted]
    run_units(extract_file, todo, executor=executor, label="dedupe", ledger=ledger, quiet=quiet, on_result=lambda unit, _: in_order.extracted(unit))


class _InOrder:
    """Hands extracted files to ``on_file`` in input order, then releases their tables."""

    def __init__(self, units: list[ExtractUnit], jobs: list[FileJob], ledger: Ledger, on_file) -> None:
        self.units, self.jobs, self.ledger, self.on_file = units, jobs, ledger, on_file
        self.done: set[str] = set()
        self.next = 0

    def extracted(self, unit: ExtractUnit) -> None:
        if self.on_file is None:
            return
        self.done.add(unit.key)
        while self.next < len(self.units) and self.units[self.next].key in self.done:
            ready = self.units[self.next]
            self.on_file(ready, self.jobs[self.next])
            self.ledger.forget([ready.key])  # before the tables go: a rerun extracts the file again if it needs it
            remove_tables(ready.prefix)
            self.next += 1


def extract_file(unit: ExtractUnit) -> dict[str, float]:
    """Extract one input file: documents, units and key fingerprints, in dolma's checking order."""
    settings = unit.settings
    hasher = fingerprinter(exact=settings.exact, threads=settings.threads)
    accumulator = _Accumulator()
    for ids, keys in document_keys(unit.path, settings, unit.codec):
        accumulator.add(ids, batch_keys(keys, settings, hasher))
    return accumulator.write(unit.prefix, hasher, unit.partitions)


def document_keys(path: str, settings: Settings, codec: str | None) -> Iterator[tuple[pa.Array, pa.Array]]:
    """Per batch of documents: the ids as JSON text (``null`` where missing) and the key strings."""
    if settings.key_path == ("id",):
        for batch in iter_document_batches(path, fields=("id",), required=("id",), codec=codec):
            keys = single_array(batch.table.column("id"))
            yield json_strings(keys), keys
        return
    key = ".".join(settings.key_path)
    for batch in iter_document_batches(path, fields=("id", key), required=(key,), json_fields=("id",), codec=codec):
        yield single_array(batch.table.column("id")), single_array(batch.table.column(key))


class _Accumulator:
    """One file's columns gathered batch by batch (units and keys carry file-wide indexes)."""

    def __init__(self) -> None:
        self.ids: list[pa.Array] = []
        self.num_documents = 0
        self.writes_empty: list[np.ndarray] = []
        self.units: dict[str, list[np.ndarray]] = {name: [] for name in ("doc", "start", "end", "bytes", "count", "kind")}
        self.keys: dict[str, list[np.ndarray]] = {name: [] for name in ("fingerprint", "unit", "whole")}
        self.num_units = 0

    def add(self, ids: pa.Array, keys: BatchKeys) -> None:
        first_doc = self.num_documents
        self.ids.append(ids.cast(pa.large_string()))
        self.num_documents += len(ids)
        self.writes_empty.append(np.asarray(keys.writes_empty, dtype=bool))
        columns = {"doc": keys.doc + first_doc, "start": keys.start, "end": keys.end, "bytes": keys.nbytes, "count": keys.count, "kind": keys.kind}
        for name, values in columns.items():
            self.units[name].append(np.asarray(values))
        self.keys["fingerprint"].append(keys.fingerprint)
        self.keys["unit"].append(np.asarray(keys.key_unit, dtype=np.int64) + self.num_units)
        self.keys["whole"].append(np.asarray(keys.whole, dtype=bool))
        self.num_units += len(keys.doc)

    def write(self, prefix: str, hasher: Fingerprinter, partitions: int) -> dict[str, float]:
        def cat(parts, dtype):
            return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)

        documents = pa.table({"id": pa.chunked_array(self.ids, pa.large_string()), "writes_empty": cat(self.writes_empty, bool)})
        units = pa.table({name: cat(parts, np.int8 if name == "kind" else np.int64) for name, parts in self.units.items()})
        lanes = hasher.lanes
        fingerprint = np.concatenate(self.keys["fingerprint"]) if self.keys["fingerprint"] else np.zeros((0, lanes), np.uint64)
        keys = {"unit": cat(self.keys["unit"], np.int64), "whole": cat(self.keys["whole"], bool)}
        if lanes == 1:  # keys repeated inside the file are found here, so the parent probes each distinct key once
            keys |= {"fp0": fingerprint[:, 0], "repeat": ~first_occurrences(fingerprint[:, 0])}
        for name, table in (("docs", documents), ("units", units), ("keys", pa.table(keys))):
            write_table(table, prefix, name)
        if lanes == 2:
            ids = {"doc": np.arange(documents.num_rows, dtype=np.uint32), "id": _id_values(documents.column("id"), hasher)}
            write_table(pa.table(ids), prefix, IDS_TABLE)
            _write_hashes(prefix, fingerprint, units.column("doc").to_numpy()[keys["unit"]], partitions)
        return {"documents": documents.num_rows, "units": units.num_rows, "keys": len(keys["unit"])}


def _id_values(ids: pa.ChunkedArray, hasher: Fingerprinter) -> pa.Array:
    """The documents' ids as the lineage table shows them: a string id unquoted, a number as text, ``null`` as null.
    Ids that are all plain JSON strings (quoted, nothing escaped: the common case) just lose their quotes."""
    import pyarrow.compute as pc

    ids = ids.combine_chunks()
    present = ids.drop_null()
    if pc.all(pc.starts_with(present, '"')).as_py() is not False and not pc.any(pc.match_substring(present, "\\")).as_py():
        return pc.utf8_slice_codeunits(ids, 1, -1).cast(pa.string())
    hasher.connection.register("ids", pa.table({"id": ids}))
    try:
        return hasher.connection.sql("SELECT (id::JSON) ->> '$' AS id FROM ids").to_arrow_table().column("id").combine_chunks()
    finally:
        hasher.connection.unregister("ids")


def _write_hashes(prefix: str, fingerprint: np.ndarray, doc: np.ndarray, partitions: int) -> None:
    """Exact mode: each key's fingerprint, row in the keys table (``ord``) and document, split by hash
    partition, so that one aggregation unit reads only its partition's rows of every file."""
    if partitions == 1:
        splits = [np.arange(len(doc))]
    else:
        partition = fingerprint[:, 0] % np.uint64(partitions)
        order = np.argsort(partition, kind="stable")  # rows of a partition stay in key order
        splits = np.split(order, np.searchsorted(partition[order], np.arange(1, partitions, dtype=np.uint64)))
    for index, rows in enumerate(splits):
        table = {"ord": rows.astype(np.int64), "fp0": fingerprint[rows, 0], "fp1": fingerprint[rows, 1], "doc": doc[rows]}
        write_table(pa.table(table), prefix, hashes_name(index))
