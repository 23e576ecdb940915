"""Deduplication: dolma's ``dedupe`` (Bloom filter) and an exact mode, both deterministic.

How a run works, and why it is deterministic whatever ``--processes`` is:

1. **Extract** (parallel, one unit per input file, :func:`extract_file`): parse the documents a
   batch at a time, split paragraphs (pyarrow), tokenize n-grams (polars regex over Unicode word
   bounds), fingerprint every key (DuckDB ``hash`` over Arrow columns; n-gram fingerprints are
   combined from token fingerprints in numpy) and write, per file, three small tables to the
   work directory: documents (ids), units (paragraphs or documents, with their code-point span)
   and keys (fingerprints in the exact order dolma would check them).
2. **Resolve** (the parent, files in input order): Bloom mode feeds each file's keys to the filter
   in order (:meth:`BloomFilter.check_and_insert` has sequential semantics), so the first occurrence
   is the first in file order, then line order, exactly as a one-process run. It starts on file
   ``i`` as soon as files ``0..i`` are extracted, while workers go on with later files. (Keys repeated
   inside a file are found by the worker, exactly, so the parent probes each distinct key once.)
   Exact mode asks DuckDB for the first occurrence of every key with one hash aggregation over all
   files (spilling to disk) and writes the lineage table (``sql/dedupe_exact.sql``).
3. **Write** attributes per file (atomically) in dolma's format, plus the lineage table in exact mode.

Bloom mode is resumable: the filter records the files it holds and is checkpointed with them, so
a rerun after a crash skips finished files and redoes the others against the filter as it was.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from typing import Literal

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import xxhash

from dolma_sql.bloom import BloomFilter, plan_size
from dolma_sql.text import WORD_PATTERN, count_words, fmix64  # noqa: F401  (count_words: used by tests)
from dolma_sql.errors import ConfigError, InputError
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.runtime.progress import console
from dolma_sql.runtime import run_units
from dolma_sql.storage import output
from dolma_sql.formats.lines import iter_line_batches
from dolma_sql.layout import swap_segment
from dolma_sql.storage import expand_globs


# ---------------------------------------------------------------------------------------------- config
class DocumentDedupeConfig(msgspec.Struct, forbid_unknown_fields=True):
    attribute_name: str
    key: str


class NgramDedupeConfig(msgspec.Struct, forbid_unknown_fields=True):
    ngram_length: int = 0
    stride: int = 0
    overlap_threshold: float = 1.0
    skip_short_paragraphs: bool = False


class ParagraphDedupeConfig(msgspec.Struct, forbid_unknown_fields=True):
    attribute_name: str
    paragraph_separator: str = "\n"
    by_ngram: NgramDedupeConfig | None = None


class DedupeConfig(msgspec.Struct, forbid_unknown_fields=True):
    """dolma's ``DedupeConfig`` plus ``mode`` (``bloom`` or ``exact``) and ``lineage`` (exact mode's table)."""

    name: str | None = None
    documents: DocumentDedupeConfig | None = None
    paragraphs: ParagraphDedupeConfig | None = None
    skip_empty: bool = False
    min_length: int = 0
    min_words: int = 0
    num_partitions: int = 1
    partition_index: int = 0
    file_partition: bool = False
    document_dir: str = "documents"
    mode: Literal["bloom", "exact"] = "bloom"
    lineage: str | None = None


class BloomFilterConfig(msgspec.Struct, forbid_unknown_fields=True):
    file: str | None = None
    read_only: bool | None = None
    size_in_bytes: int = 0
    estimated_doc_count: int = 0
    desired_false_positive_rate: float = 0.0


class WorkDirConfig(msgspec.Struct, forbid_unknown_fields=True):
    input: str | None = None
    output: str | None = None


class CompressionConfig(msgspec.Struct, forbid_unknown_fields=True):
    input: str | None = None
    output: str | None = None


class DeduperConfig(msgspec.Struct, forbid_unknown_fields=True):
    """dolma's ``DeduperConfig`` plus ``report`` (a JSON file for the run's statistics)."""

    dedupe: DedupeConfig | None = None
    documents: list[str] = []
    bloom_filter: BloomFilterConfig = msgspec.field(default_factory=BloomFilterConfig)
    processes: int = 1
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    compression: CompressionConfig = msgspec.field(default_factory=CompressionConfig)
    is_s3_volume: bool = False
    dryrun: bool = False
    report: str | None = None


CODECS = {None: None, "": "", "none": "", "gz": "gz", "gzip": "gz", "zst": "zst", "zstd": "zst"}


# ---------------------------------------------------------------------------------------------- fingerprints
HASH_SCHEME = "duckdb-hash+fmix64/v1"
EXACT_SCHEME = "md5-lanes+fmix64/v1"
CANARY_STRINGS = ["dolma-sql", "", "é", "a much longer string than a DuckDB inline string"]
POLY = np.uint64(0x100000001B3)
POLY2 = np.uint64(0x9E3779B97F4A7C15)


class Fingerprinter:
    """64-bit (Bloom) or 2×64-bit (exact) fingerprints of strings and of token sequences.

    A string's fingerprint is ``fmix64(hash(s))``; a sequence's is ``fmix64(Σ hash(t_j)·P^(n-1-j))``
    per lane, so a one-token sequence and the same string agree, as dolma's ``[p]`` and ``[t]`` keys do.
    Bloom mode hashes with DuckDB's ``hash`` (vectorized, ~2.5 GB/s); the scheme and a canary are
    stored in the filter so a filter made by an incompatible hash is refused. Exact mode uses the
    two 64-bit halves of MD5 (a 128-bit fingerprint: a collision is ~1e-20 likely at 10^9 keys).
    """

    def __init__(self, *, exact: bool, threads: int = 1) -> None:
        import duckdb

        self.exact = exact
        self.lanes = 2 if exact else 1
        self.connection = duckdb.connect(config={"threads": max(1, threads)})

    def raw(self, strings: pa.Array) -> np.ndarray:
        """``(n, lanes)`` uint64 hashes of the strings (before mixing)."""
        if len(strings) == 0:
            return np.zeros((0, self.lanes), dtype=np.uint64)
        self.connection.register("strings", pa.table({"s": strings}))
        try:
            if self.exact:
                query = "SELECT (md5_number(s) & 18446744073709551615::UHUGEINT)::UBIGINT AS a, (md5_number(s) >> 64)::UBIGINT AS b FROM strings"
            else:
                query = "SELECT hash(s) AS a FROM strings"
            table = self.connection.sql(query).to_arrow_table()
        finally:
            self.connection.unregister("strings")
        return np.stack([table.column(i).to_numpy() for i in range(self.lanes)], axis=1).astype(np.uint64)

    def strings(self, strings: pa.Array) -> np.ndarray:
        return fmix64(self.raw(strings))

    def windows(self, token_hashes: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
        """Fingerprints of the ``length``-token windows starting at ``starts`` (indexes into ``token_hashes``)."""
        combined = np.zeros((len(starts), self.lanes), dtype=np.uint64)
        for offset in range(length):
            combined *= np.array([POLY, POLY2][: self.lanes], dtype=np.uint64)
            combined += token_hashes[starts + offset]
        return fmix64(combined)

    def canary(self) -> list[int]:
        return [int(x) for x in self.strings(pa.array(CANARY_STRINGS, pa.large_string()))[:, 0]]


# ---------------------------------------------------------------------------------------------- plan
KIND_WHOLE, KIND_NGRAMS, KIND_FALLBACK, KIND_SILENT = 0, 1, 2, 3
"""Units: a whole key (document or paragraph); a paragraph scored by n-gram overlap; a short paragraph
hashed whole and scored 1.0/0.0; a paragraph without any n-gram under ``skip_short_paragraphs`` (never reported)."""


@dataclass(frozen=True)
class Settings:
    """Everything a worker needs, resolved and validated from the config (picklable)."""

    mode: str  # "documents" | "paragraphs"
    attribute: str
    key_path: tuple[str, ...]
    separator: str
    ngram_length: int
    stride: int
    overlap_threshold: float
    skip_short_paragraphs: bool
    skip_empty: bool
    min_length: int
    min_words: int
    num_partitions: int
    partition_index: int
    exact: bool
    threads: int


@dataclass(frozen=True)
class ExtractUnit:
    path: str
    index: int
    out_prefix: str
    settings: Settings
    codec: str | None = None


@dataclass(frozen=True)
class FileJob:
    path: str
    attributes: str
    codec: str | None
    input_codec: str | None = None


def parse_key_path(key: str) -> tuple[str, ...]:
    """``$.metadata.url`` / ``$['metadata']['url']`` → field names; anything fancier is refused."""
    match = re.fullmatch(r"\$((?:\.[A-Za-z_][\w-]*|\[(?:'[^']*'|\"[^\"]*\")\])+)", key.strip())
    if not match:
        raise ConfigError(
            f"unsupported key {key!r}",
            path="dedupe.documents.key",
            hint="use a JSONPath to one field, such as $.id, $.text or $.metadata.url",
        )
    return tuple(m.group(1) or m.group(2)[1:-1] for m in re.finditer(r"\.([A-Za-z_][\w-]*)|\[('[^']*'|\"[^\"]*\")\]", match.group(1)))


def _document_key_path(documents: DocumentDedupeConfig) -> tuple[str, ...]:
    path = parse_key_path(documents.key)
    if path[0] == "id" and len(path) > 1:
        raise ConfigError("a key inside the document id is not supported", path="dedupe.documents.key", hint="key on $.id itself")
    return path


def resolve_settings(config: DeduperConfig, processes: int) -> Settings:
    dedupe = config.dedupe
    if dedupe is None:
        raise ConfigError("the dedupe section is missing", path="dedupe", hint="set dedupe.documents or dedupe.paragraphs")
    if (dedupe.documents is None) == (dedupe.paragraphs is None):
        raise ConfigError(
            "either dedupe.documents or dedupe.paragraphs must be specified (not both)",
            path="dedupe",
            hint="--dedupe.documents.attribute_name A --dedupe.documents.key '$.metadata.url', or --dedupe.paragraphs.attribute_name A",
        )
    for field in ("min_length", "min_words"):
        if getattr(dedupe, field) < 0:
            raise ConfigError(f"must be >= 0, got {getattr(dedupe, field)}", path=f"dedupe.{field}")
    if dedupe.num_partitions < 1 or not 0 <= dedupe.partition_index < dedupe.num_partitions:
        raise ConfigError(
            f"partition_index {dedupe.partition_index} is not in [0, num_partitions={dedupe.num_partitions})",
            path="dedupe.partition_index",
        )
    suffix = f"_{dedupe.partition_index}" if dedupe.num_partitions > 1 else ""
    ngram = (dedupe.paragraphs.by_ngram if dedupe.paragraphs else None) or NgramDedupeConfig()
    if ngram.ngram_length < 0 or ngram.stride < 0:
        raise ConfigError("ngram_length and stride must be >= 0", path="dedupe.paragraphs.by_ngram")
    if dedupe.paragraphs is not None and dedupe.paragraphs.paragraph_separator == "":
        raise ConfigError("must not be empty", path="dedupe.paragraphs.paragraph_separator")
    cpu = os.cpu_count() or 1
    return Settings(
        mode="documents" if dedupe.documents else "paragraphs",
        attribute=(dedupe.documents or dedupe.paragraphs).attribute_name + suffix,
        key_path=_document_key_path(dedupe.documents) if dedupe.documents else ("text",),
        separator=dedupe.paragraphs.paragraph_separator if dedupe.paragraphs else "\n",
        ngram_length=ngram.ngram_length,
        stride=ngram.stride,
        overlap_threshold=ngram.overlap_threshold,
        skip_short_paragraphs=ngram.skip_short_paragraphs,
        skip_empty=dedupe.skip_empty,
        min_length=dedupe.min_length,
        min_words=dedupe.min_words,
        num_partitions=dedupe.num_partitions,
        partition_index=dedupe.partition_index,
        exact=dedupe.mode == "exact",
        threads=max(1, cpu // max(1, processes)),
    )


def plan_files(config: DeduperConfig) -> list[FileJob]:
    """Input files in order, with their attribute file (every ``/<document_dir>/`` component is swapped, as dolma does)."""
    dedupe = config.dedupe
    name = (dedupe.name or (dedupe.documents or dedupe.paragraphs).attribute_name) + (
        f"_{dedupe.partition_index}" if dedupe.num_partitions > 1 else ""
    )
    files = expand_globs(config.documents, config_path="documents", warn=lambda message: console.print(f"[yellow]warning:[/] {message}"))
    for field in ("input", "output"):
        if getattr(config.compression, field) not in CODECS:
            raise ConfigError(f"unknown compression {getattr(config.compression, field)!r}", path=f"compression.{field}",
                              hint="use gz, zst or none (or leave it unset to follow the file extension)")
    jobs = []
    for path in files:
        target = swap_segment(path, dedupe.document_dir, f"attributes/{name}")
        if target is None:
            raise ConfigError(
                f"path ({path}) does not contain the expected document directory '/{dedupe.document_dir}/'",
                path="dedupe.document_dir",
                hint=f"keep documents under a '{dedupe.document_dir}/' folder, or set dedupe.document_dir to the folder name they use",
            )
        if dedupe.file_partition and dedupe.num_partitions > 1:
            if xxhash.xxh64_intdigest(path) % dedupe.num_partitions != dedupe.partition_index:
                continue
        jobs.append(FileJob(path, target, CODECS[config.compression.output], CODECS[config.compression.input]))
    return jobs


# ---------------------------------------------------------------------------------------------- extract
def _decoder(settings: Settings) -> msgspec.json.Decoder:
    """A decoder for a JSON array of documents that keeps the raw ``id`` and types the key as a string."""
    path = settings.key_path
    if path == ("id",):
        return msgspec.json.Decoder(list[msgspec.defstruct("Document", [("id", str)])])
    leaf: type = str
    for depth, name in reversed(list(enumerate(path[1:]))):
        leaf = msgspec.defstruct(f"Key{depth}", [("value", leaf)], rename={"value": name})
    document = msgspec.defstruct("Document", [("id", msgspec.Raw, msgspec.Raw(b"null")), ("key", leaf)], kw_only=True, rename={"key": path[0]})
    return msgspec.json.Decoder(list[document])


def _decode(batch, decoder: msgspec.json.Decoder, settings: Settings) -> tuple[list[bytes], list[str]]:
    """Raw ids and key strings of one line batch, decoded as one JSON array (one C call)."""
    buffers = batch.lines.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[batch.lines.offset : batch.lines.offset + len(batch.lines) + 1]
    data = buffers[2].to_pybytes()[offsets[0] : offsets[-1]]
    body = data[:-1] if data.endswith(b"\n") else data
    try:
        documents = decoder.decode(b"[" + body.replace(b"\n", b",") + b"]")
    except msgspec.ValidationError as error:
        message = str(error)
        where = re.search(r" - at `\$\[(\d+)\](.*)`$", message)
        line = batch.first_line + int(where.group(1)) if where else None
        field = "$" + where.group(2) if where and where.group(2) else None
        message = message[: where.start()] if where else message
        key = "$." + ".".join(settings.key_path)
        raise InputError(
            f"{message}{' at ' + field if field else ''}",
            path=batch.path,
            line=line,
            hint=f"every document needs a string at {key}" + ("" if settings.mode == "paragraphs" else " (the dedupe key); fix or drop that line"),
        ) from None
    except msgspec.DecodeError as error:
        line, reason = _first_malformed(batch)
        raise InputError(f"malformed JSON ({reason or error})", path=batch.path, line=line,
                         hint="each line must be one JSON object; blank lines are not allowed") from None
    if settings.key_path == ("id",):
        keys = [document.id for document in documents]
        return [msgspec.json.encode(key) for key in keys], keys
    ids = [bytes(document.id) for document in documents]
    keys = []
    for document in documents:
        value = document.key
        for _ in settings.key_path[1:]:
            value = value.value
        keys.append(value)
    return ids, keys


def write_table(table: pa.Table, prefix: str, name: str, *, parquet: bool) -> None:
    """Exact mode writes Parquet (DuckDB reads it); Bloom mode writes uncompressed Arrow IPC (cheapest)."""
    path = f"{prefix}.{name}.{'parquet' if parquet else 'arrow'}"
    if parquet:
        pq.write_table(table, path + ".tmp", compression="none")
    else:
        import pyarrow.feather as feather

        feather.write_feather(table, path + ".tmp", compression="uncompressed")
    os.replace(path + ".tmp", path)


def read_table(prefix: str, name: str, *, parquet: bool, columns: list[str] | None = None) -> pa.Table:
    if parquet:
        return pq.read_table(f"{prefix}.{name}.parquet", columns=columns)
    import pyarrow.feather as feather

    return feather.read_table(f"{prefix}.{name}.arrow", columns=columns, memory_map=True)


class _Accumulator:
    """Per-file columns gathered batch by batch (units and keys carry file-wide indexes)."""

    def __init__(self) -> None:
        self.ids: list[pa.Array] = []
        self.num_documents = 0
        self.empty_value: list[np.ndarray] = []
        self.units: dict[str, list[np.ndarray]] = {name: [] for name in ("doc", "start", "end", "bytes", "count", "kind")}
        self.keys: dict[str, list[np.ndarray]] = {name: [] for name in ("fingerprint", "unit", "whole")}
        self.num_units = 0

    def add(self, *, ids, empty_value, doc, start, end, nbytes, count, kind, fingerprint, key_unit, whole) -> None:
        first_doc = self.num_documents
        self.ids.append(ids)
        self.num_documents += len(ids)
        self.empty_value.append(np.asarray(empty_value, dtype=bool))
        for name, values in (("doc", doc + first_doc), ("start", start), ("end", end), ("bytes", nbytes), ("count", count), ("kind", kind)):
            self.units[name].append(np.asarray(values))
        self.keys["fingerprint"].append(fingerprint)
        self.keys["unit"].append(np.asarray(key_unit, dtype=np.int64) + self.num_units)
        self.keys["whole"].append(np.asarray(whole, dtype=bool))
        self.num_units += len(doc)

    def write(self, prefix: str, lanes: int) -> dict:
        def cat(parts, dtype):
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

        documents = pa.table({"id": pa.chunked_array(self.ids, pa.string()), "empty_value": cat(self.empty_value, bool)})
        units = pa.table({name: cat(parts, np.int8 if name == "kind" else np.int64) for name, parts in self.units.items()})
        fingerprint = np.concatenate(self.keys["fingerprint"]) if self.keys["fingerprint"] else np.zeros((0, lanes), np.uint64)
        keys = {f"fp{lane}": fingerprint[:, lane] for lane in range(lanes)}
        keys["unit"] = cat(self.keys["unit"], np.int64)
        keys["whole"] = cat(self.keys["whole"], bool)
        keys["doc"] = units.column("doc").to_numpy()[keys["unit"]] if len(keys["unit"]) else np.zeros(0, np.int64)
        if lanes == 1:
            from dolma_sql.bloom import first_occurrences

            keys["repeat"] = ~first_occurrences(fingerprint[:, 0])
        for name, table in (("docs", documents), ("units", units), ("keys", pa.table(keys))):
            write_table(table, prefix, name, parquet=lanes == 2)
        return {"documents": documents.num_rows, "units": units.num_rows, "keys": len(keys["unit"])}


_FINGERPRINTERS: dict[tuple[bool, int], Fingerprinter] = {}


def _fingerprinter(exact: bool, threads: int) -> Fingerprinter:
    """One per worker process: connecting DuckDB costs more than hashing a small file."""
    if (exact, threads) not in _FINGERPRINTERS:
        _FINGERPRINTERS[exact, threads] = Fingerprinter(exact=exact, threads=threads)
    return _FINGERPRINTERS[exact, threads]


def _first_malformed(batch) -> tuple[int | None, str | None]:
    """The first line that is not valid JSON (only on the error path: one decode per line)."""
    for index, line in enumerate(batch.lines.to_pylist()):
        try:
            msgspec.json.decode(line)
        except msgspec.DecodeError as error:
            return batch.first_line + index, str(error)
    return None, None


def _read_batch(batch, decoder: msgspec.json.Decoder, settings: Settings) -> tuple[pa.Array, pa.Array]:
    """``(ids as JSON text, keys)`` of one line batch.

    Fast path: pyarrow's JSON reader straight to Arrow columns. Anything it cannot represent
    exactly (a non-string id, a missing or non-string key, a blank or malformed line) goes through
    msgspec, which also names the offending line.
    """
    import pyarrow.json as pj

    leaf: pa.DataType = pa.large_string()
    for name in reversed(settings.key_path[1:]):
        leaf = pa.struct([(name, leaf)])
    fields = [("id", pa.string())] + ([(settings.key_path[0], leaf)] if settings.key_path != ("id",) else [])
    try:
        table = pj.read_json(
            pa.BufferReader(_string_bytes(batch.lines)),
            read_options=pj.ReadOptions(use_threads=False, block_size=max(1 << 20, batch.lines.nbytes + 1)),
            parse_options=pj.ParseOptions(explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore"),
        )
    except pa.ArrowInvalid:
        table = None
    if table is not None and table.num_rows == len(batch):
        keys = table.column(settings.key_path[0]).combine_chunks()
        for name in settings.key_path[1:]:
            keys = pc.struct_field(keys, name) if keys.null_count == 0 else keys
        ids = table.column("id").combine_chunks()
        if keys.null_count == 0 and not pc.any(pc.match_substring_regex(ids, r"[\x00-\x1f]")).as_py():
            escaped = pc.replace_substring(pc.replace_substring(ids, "\\", "\\\\"), '"', '\\"')
            ids = pc.binary_join_element_wise('"', escaped, '"', "")
            return ids, keys.cast(pa.large_string())
    raw_ids, keys = _decode(batch, decoder, settings)
    return pa.array(raw_ids, pa.binary()).cast(pa.string()), pa.array(keys, pa.large_string())


def extract_file(unit: ExtractUnit) -> dict:
    """Phase 1 for one input file: documents, units and key fingerprints, in dolma's checking order."""
    settings = unit.settings
    fingerprinter = _fingerprinter(settings.exact, settings.threads)
    decoder = _decoder(settings)
    accumulator = _Accumulator()
    for batch in iter_line_batches(unit.path, codec=unit.codec):
        ids, strings = _read_batch(batch, decoder, settings)
        if settings.mode == "documents":
            _document_keys(accumulator, ids, strings, settings, fingerprinter)
        else:
            _paragraph_keys(accumulator, ids, strings, settings, fingerprinter)
    return accumulator.write(unit.out_prefix, fingerprinter.lanes)


def _in_partition(fingerprint: np.ndarray, settings: Settings) -> np.ndarray:
    if settings.num_partitions == 1:
        return np.ones(len(fingerprint), dtype=bool)
    return fingerprint[:, 0] % np.uint64(settings.num_partitions) == np.uint64(settings.partition_index)


def _skipped(strings: pa.Array, lengths: np.ndarray, settings: Settings) -> np.ndarray:
    """dolma's filters (min_length, min_words, skip_empty) as independent conditions (upstream's chain
    makes any ``min_words > 0`` skip dedup entirely)."""
    skip = lengths < settings.min_length
    if settings.min_words > 0:
        skip |= count_words(strings) < settings.min_words
    if settings.skip_empty:
        skip |= (lengths == 0) | pc.utf8_is_space(strings).to_numpy(zero_copy_only=False)
    return skip


def _document_keys(accumulator, ids, keys: pa.Array, settings: Settings, fingerprinter: Fingerprinter) -> None:
    lengths = pc.utf8_length(keys).to_numpy().astype(np.int64)
    skip = _skipped(keys, lengths, settings)
    fingerprint = fingerprinter.strings(keys)
    checked = ~skip & _in_partition(fingerprint, settings)
    doc = np.flatnonzero(checked)
    accumulator.add(
        ids=ids,
        empty_value=~checked,
        doc=doc,
        start=np.zeros(len(doc), np.int64),
        end=lengths[doc],
        nbytes=pc.binary_length(keys).to_numpy()[doc],
        count=np.ones(len(doc), np.int64),
        kind=np.full(len(doc), KIND_WHOLE, np.int8),
        fingerprint=fingerprint[doc],
        key_unit=np.arange(len(doc)),
        whole=np.ones(len(doc), bool),
    )


def paragraph_spans(text_lengths: np.ndarray, paragraph_lengths: np.ndarray, paragraph_doc: np.ndarray, separator_length: int):
    """Code-point ``[start, end)`` of each paragraph, by dolma's rule: a span includes its separator
    unless the separator ends the text, and each span starts where the previous one ended."""
    count = len(paragraph_lengths)
    last = np.ones(count, dtype=bool)
    last[:-1] = paragraph_doc[1:] != paragraph_doc[:-1]
    first = np.ones(count, dtype=bool)
    first[1:] = paragraph_doc[1:] != paragraph_doc[:-1]
    step = paragraph_lengths + np.where(last, 0, separator_length)
    true_end = _cumsum_by_group(step, first)
    true_start = true_end - step
    with_separator = ~last & (true_start + paragraph_lengths + separator_length < text_lengths[paragraph_doc])
    end = _cumsum_by_group(paragraph_lengths + np.where(with_separator, separator_length, 0), first)
    start = end - paragraph_lengths - np.where(with_separator, separator_length, 0)
    return start, end


def _cumsum_by_group(values: np.ndarray, group_start: np.ndarray) -> np.ndarray:
    total = np.cumsum(values)
    base = (total - values)[group_start]
    return total - np.repeat(base, np.diff(np.append(np.flatnonzero(group_start), len(values))))


def _paragraph_keys(accumulator, ids, texts: pa.Array, settings: Settings, fingerprinter: Fingerprinter) -> None:
    text_lengths = pc.utf8_length(texts).to_numpy().astype(np.int64)
    split = pc.split_pattern(texts, settings.separator)
    paragraphs = pc.list_flatten(split)
    paragraph_doc = pc.list_parent_indices(split).to_numpy().astype(np.int64)
    lengths = pc.utf8_length(paragraphs).to_numpy().astype(np.int64)
    start, end = paragraph_spans(text_lengths, lengths, paragraph_doc, len(settings.separator))
    keep = (text_lengths[paragraph_doc] > 0) & ~_skipped(paragraphs, lengths, settings)
    nbytes = pc.binary_length(paragraphs).to_numpy().astype(np.int64)
    common = dict(ids=ids, empty_value=text_lengths > 0)
    if settings.ngram_length == 0:
        fingerprint = fingerprinter.strings(paragraphs)
        index = np.flatnonzero(keep & _in_partition(fingerprint, settings))
        accumulator.add(
            **common, doc=paragraph_doc[index], start=start[index], end=end[index], nbytes=nbytes[index],
            count=np.ones(len(index), np.int64), kind=np.full(len(index), KIND_WHOLE, np.int8),
            fingerprint=fingerprint[index], key_unit=np.arange(len(index)), whole=np.ones(len(index), bool),
        )
        return
    index = np.flatnonzero(keep)
    paragraphs, nbytes = paragraphs.take(pa.array(index)), nbytes[index]
    count, kind, fingerprint, key_unit, whole = _ngram_keys(paragraphs, settings, fingerprinter)
    accumulator.add(
        **common, doc=paragraph_doc[index], start=start[index], end=end[index], nbytes=nbytes,
        count=count, kind=kind, fingerprint=fingerprint, key_unit=key_unit, whole=whole,
    )


def _ngram_keys(paragraphs: pa.Array, settings: Settings, fingerprinter: Fingerprinter):
    """Keys of n-gram mode in dolma's order: each paragraph's sampled windows, then (if it has fewer than two)
    the whole paragraph. Sampled window starts are 0, 1, 1+stride, 1+2·stride… (dolma's ``last == 0`` quirk)."""
    import polars as pl

    length, stride = settings.ngram_length, settings.stride
    tokens = pl.from_arrow(paragraphs).str.extract_all(WORD_PATTERN)
    token_counts = tokens.list.len().fill_null(0).to_numpy().astype(np.int64)
    flat_tokens = tokens.explode().drop_nulls().to_arrow()
    token_hashes = fingerprinter.raw(flat_tokens)
    windows = np.maximum(token_counts - length + 1, 0)
    if stride <= 1:
        count = windows
    else:
        count = np.where(windows >= 1, 1 + np.where(windows >= 2, (windows - 2) // stride + 1, 0), 0)
    paragraph_of_window = np.repeat(np.arange(len(count)), count)
    rank = np.arange(len(paragraph_of_window)) - np.repeat(np.cumsum(count) - count, count)
    offset_in_paragraph = rank if stride <= 1 else np.where(rank == 0, 0, 1 + (rank - 1) * stride)
    token_start = np.cumsum(token_counts) - token_counts
    window_fingerprint = fingerprinter.windows(token_hashes, token_start[paragraph_of_window] + offset_in_paragraph, length)
    inside = _in_partition(window_fingerprint, settings)
    fallback = (count < 2) & (not settings.skip_short_paragraphs)
    # with skip_short_paragraphs dolma still scores a one-window paragraph (0/1 or 1/1); zero windows give NaN: never reported
    kind = np.where(fallback, KIND_FALLBACK, np.where(count == 0, KIND_SILENT, KIND_NGRAMS)).astype(np.int8)
    # interleave: per paragraph, its in-partition windows, then its whole key (fallback only)
    kept_windows = np.flatnonzero(inside)
    per_paragraph = np.bincount(paragraph_of_window[kept_windows], minlength=len(count)) + fallback
    slot_start = np.cumsum(per_paragraph) - per_paragraph
    total = int(per_paragraph.sum())
    fingerprint = np.zeros((total, fingerprinter.lanes), dtype=np.uint64)
    key_unit = np.zeros(total, dtype=np.int64)
    whole = np.zeros(total, dtype=bool)
    window_paragraph = paragraph_of_window[kept_windows]
    window_rank = np.arange(len(kept_windows)) - np.repeat(
        np.cumsum(np.bincount(window_paragraph, minlength=len(count))) - np.bincount(window_paragraph, minlength=len(count)),
        np.bincount(window_paragraph, minlength=len(count)),
    )
    slots = slot_start[window_paragraph] + window_rank
    fingerprint[slots] = window_fingerprint[kept_windows]
    key_unit[slots] = window_paragraph
    fallback_index = np.flatnonzero(fallback)
    whole_slots = slot_start[fallback_index] + per_paragraph[fallback_index] - 1
    fingerprint[whole_slots] = fingerprinter.strings(paragraphs.take(pa.array(fallback_index)))
    key_unit[whole_slots] = fallback_index
    whole[whole_slots] = True
    return count, kind, fingerprint, key_unit, whole


# ---------------------------------------------------------------------------------------------- resolve + write
@dataclass
class Stats:
    documents: int = 0
    units: int = 0
    keys: int = 0
    duplicate_keys: int = 0
    marked_spans: int = 0
    marked_documents: int = 0
    marked_bytes: int = 0
    skipped_files: int = 0
    files: int = 0


def _scores(units: pa.Table, keys: pa.Table, duplicate: np.ndarray, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
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


def write_attributes(job: FileJob, prefix: str, duplicate: np.ndarray, settings: Settings, stats: Stats) -> None:
    """Write one attribute file: ``{"attributes":{...},"id":...}`` per input line, dolma's exact shape."""
    documents = read_table(prefix, "docs", parquet=settings.exact)
    units = read_table(prefix, "units", parquet=settings.exact)
    keys = read_table(prefix, "keys", parquet=settings.exact, columns=["unit", "whole"])
    reported, score = _scores(units, keys, duplicate, settings)
    index = np.flatnonzero(reported)
    doc = units.column("doc").to_numpy()[index]
    start = pa.array(units.column("start").to_numpy()[index]).cast(pa.string())
    end = pa.array(units.column("end").to_numpy()[index]).cast(pa.string())
    if settings.ngram_length == 0:
        score_text = pa.array(["1"] * len(index), pa.string())
    else:
        values, inverse = np.unique(score[index], return_inverse=True)
        score_text = pa.array([repr(float(value)) for value in values], pa.string()).take(pa.array(inverse.ravel()))
    spans = pc.binary_join_element_wise("[", start, ",", end, ",", score_text, "]", "")
    per_doc = np.bincount(doc, minlength=documents.num_rows)
    offsets = np.concatenate([[0], np.cumsum(per_doc)]).astype(np.int32)
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), spans), ",")
    value = pc.binary_join_element_wise("[", joined, "]", "")
    has_value = (per_doc > 0) | documents.column("empty_value").to_numpy()
    name = json.dumps(settings.attribute, ensure_ascii=False)
    attribute = pc.if_else(pa.array(has_value), pc.binary_join_element_wise(name + ":", value, ""), "")
    ids = pc.fill_null(documents.column("id"), "null")
    lines = pc.binary_join_element_wise('{"attributes":{', attribute, '},"id":', ids, "}\n", "")
    with output(job.attributes, codec=job.codec) as writer:
        if len(lines):
            writer.write(_string_bytes(lines))
    stats.documents += documents.num_rows
    stats.units += units.num_rows
    stats.keys += keys.num_rows
    stats.duplicate_keys += int(duplicate.sum())
    stats.marked_spans += len(index)
    stats.marked_documents += int((per_doc > 0).sum())
    stats.marked_bytes += int(units.column("bytes").to_numpy()[index].sum())
    stats.files += 1


def _string_bytes(strings: pa.Array) -> memoryview:
    """The concatenated bytes of a string array (its data buffer, no copy)."""
    strings = strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings
    strings = strings.cast(pa.large_string())
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)[strings.offset : strings.offset + len(strings) + 1]
    return memoryview(strings.buffers()[2])[offsets[0] : offsets[-1]]


# ---------------------------------------------------------------------------------------------- run
@dataclass
class Report:
    mode: str
    stats: Stats
    seconds: float
    filter_bits: int = 0
    filter_hashes: int = 0
    fill_ratio: float | None = None
    estimated_false_positive_rate: float | None = None
    lineage: str | None = None

    def as_dict(self) -> dict:
        return {"mode": self.mode, "seconds": round(self.seconds, 3), **self.stats.__dict__, "filter_bits": self.filter_bits,
                "filter_hashes": self.filter_hashes, "fill_ratio": self.fill_ratio,
                "estimated_false_positive_rate": self.estimated_false_positive_rate, "lineage": self.lineage}


def run(config: DeduperConfig) -> Report:
    """Run a dedupe end to end and return its report (the CLI prints it)."""
    started = time.perf_counter()
    processes = max(1, config.processes)
    settings = resolve_settings(config, processes)
    if not settings.exact:
        if not config.bloom_filter.file:
            raise ConfigError("bloom_filter.file is required", path="bloom_filter.file",
                              hint="--bloom_filter.file PATH (created if missing), or --exact for exact dedup")
        if config.bloom_filter.read_only is None:
            raise ConfigError("bloom_filter.read_only is required", path="bloom_filter.read_only",
                              hint="--no-bloom_filter.read_only to build/extend the filter, --bloom_filter.read_only to only check against it")
    jobs = plan_files(config)
    work_root = config.work_dir.output
    if work_root:
        os.makedirs(work_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dolma-sql-dedupe-", dir=work_root)
    try:
        if settings.exact:
            return _run_exact(config, settings, jobs, work, processes, started)
        return _run_bloom(config, settings, jobs, work, processes, started)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _extract(jobs: list[FileJob], indexes: list[int], work: str, settings: Settings, processes: int, on_file=None) -> None:
    """Run phase 1 over the files; ``on_file(index)`` is called in the parent for each file, in input order,
    as soon as it and every file before it are extracted (so resolving overlaps with extracting)."""
    units = [ExtractUnit(jobs[i].path, i, os.path.join(work, f"{i:06d}"), settings, jobs[i].input_codec) for i in indexes]
    finished: set[int] = set()
    next_position = 0

    def in_order(unit: ExtractUnit, _counters) -> None:
        nonlocal next_position
        finished.add(unit.index)
        while next_position < len(indexes) and indexes[next_position] in finished:
            on_file(indexes[next_position])
            next_position += 1

    run_units(extract_file, units, executor=LocalExecutor(processes), label="deduplicating",
              on_result=in_order if on_file else None)


def _open_filter(config: DeduperConfig, fingerprinter: Fingerprinter) -> BloomFilter:
    options = config.bloom_filter
    path = options.file
    if os.path.exists(path):
        bloom = BloomFilter.load(path, read_only=bool(options.read_only))
        if bloom.hash_scheme != HASH_SCHEME or bloom.canary != fingerprinter.canary():
            raise InputError(
                f"this Bloom filter was built with hash scheme {bloom.hash_scheme!r}, which this dolma-sql "
                f"({HASH_SCHEME}) cannot reproduce",
                path=path,
                hint="rebuild the filter with this version (rerun the dedupe with a new bloom_filter.file)",
            )
        return bloom
    if options.read_only:
        raise ConfigError(
            f"bloom_filter.read_only is set but {path} does not exist",
            path="bloom_filter.file",
            hint="build the filter first (a run with --no-bloom_filter.read_only), or check the path",
        )
    size = plan_size(size_in_bytes=options.size_in_bytes, estimated_count=options.estimated_doc_count,
                     false_positive_rate=options.desired_false_positive_rate)
    return BloomFilter.create(size, hash_scheme=HASH_SCHEME, canary=fingerprinter.canary())


def _remove_intermediates(prefix: str) -> None:
    for name in ("docs", "units", "keys"):
        for extension in ("arrow", "parquet"):
            if os.path.exists(f"{prefix}.{name}.{extension}"):
                os.remove(f"{prefix}.{name}.{extension}")


CHECKPOINT_SECONDS = float(os.environ.get("DOLMA_SQL_CHECKPOINT_SECONDS", 120))
"""A growing filter is saved (with its journal) at most this often, and at the end."""


def _journal_entry(job: FileJob) -> dict:
    return {"path": os.path.abspath(job.path), "size": os.path.getsize(job.path), "attributes": os.path.abspath(job.attributes)}


def _run_bloom(config: DeduperConfig, settings: Settings, jobs: list[FileJob], work: str, processes: int, started: float) -> Report:
    read_only = bool(config.bloom_filter.read_only)
    fingerprinter = Fingerprinter(exact=False)
    bloom = _open_filter(config, fingerprinter)
    stats = Stats()
    journal = {entry["path"]: entry for entry in bloom.journal}
    todo = []
    for index, job in enumerate(jobs):
        entry = journal.get(os.path.abspath(job.path))
        if read_only and os.path.exists(job.attributes):
            stats.skipped_files += 1
        elif entry is None:
            todo.append(index)
        elif entry["attributes"] == os.path.abspath(job.attributes) and os.path.exists(job.attributes):
            stats.skipped_files += 1
        else:
            raise InputError(
                f"the Bloom filter already holds the keys of {job.path} (inserted by a run that wrote "
                f"{entry['attributes']}), so deduplicating it again would mark every key a duplicate",
                path=config.bloom_filter.file,
                hint="use a new bloom_filter.file (or delete this one) to deduplicate from scratch",
            )
    last_save = time.monotonic()
    consistent = True  # the in-memory filter holds exactly the journal's files

    def resolve(index: int) -> None:
        nonlocal last_save, consistent
        job, prefix = jobs[index], os.path.join(work, f"{index:06d}")
        keys = read_table(prefix, "keys", parquet=False, columns=["fp0", "repeat"])
        fingerprint = keys.column("fp0").to_numpy()
        if read_only:  # nothing is inserted, so a key repeated inside the input is not a duplicate
            duplicate = bloom.check_and_insert(fingerprint, insert=False)
        else:
            consistent = False
            duplicate = keys.column("repeat").to_numpy().copy()
            fresh = np.flatnonzero(~duplicate)
            duplicate[fresh] = bloom.check_and_insert(fingerprint[fresh], insert=True, distinct=True)
        write_attributes(job, prefix, duplicate, settings, stats)
        _remove_intermediates(prefix)
        if not read_only:
            bloom.journal.append(_journal_entry(job))
            consistent = True
            if time.monotonic() - last_save > CHECKPOINT_SECONDS:
                bloom.save(config.bloom_filter.file)
                last_save = time.monotonic()

    try:
        if todo:
            _extract(jobs, todo, work, settings, processes, on_file=resolve)
    finally:  # on success, and after a failure too (what is done stays done), if the state is consistent
        if not read_only and todo and consistent:
            bloom.save(config.bloom_filter.file)
    return Report("bloom" + (" (read-only)" if read_only else ""), stats, time.perf_counter() - started, bloom.num_bits,
                  bloom.num_hashes, bloom.fill_ratio(), bloom.estimated_false_positive_rate())


EXACT_SQL = "dedupe_exact.sql"


def _run_exact(config: DeduperConfig, settings: Settings, jobs: list[FileJob], work: str, processes: int, started: float) -> Report:
    """Exact dedup: DuckDB finds every key's first occurrence (hash aggregation, spilling under ``work``)."""
    import duckdb
    from importlib.resources import files

    stats = Stats()
    _extract(jobs, list(range(len(jobs))), work, settings, processes)
    connection = duckdb.connect(config={"temp_directory": os.path.join(work, "spill")})  # in memory, spilling to work
    connection.register("file_list", pa.table({"file": np.arange(len(jobs), dtype=np.int64), "path": [job.path for job in jobs]}))
    lineage = os.path.abspath(config.dedupe.lineage or _default_lineage(jobs))
    os.makedirs(os.path.dirname(lineage), exist_ok=True)
    script = files("dolma_sql.sql").joinpath(EXACT_SQL).read_text()
    script = script.replace("{lineage}", lineage.replace("'", "''")).replace("{work}", work.replace("'", "''"))
    for statement in filter(str.strip, script.split(";")):
        connection.execute(statement)
    os.replace(lineage + ".tmp", lineage)
    for index, job in enumerate(jobs):
        prefix = os.path.join(work, f"{index:06d}")
        count = pq.read_metadata(f"{prefix}.keys.parquet").num_rows
        duplicate = np.zeros(count, dtype=bool)
        ordinals = connection.sql("SELECT ord FROM duplicates WHERE file = $1 ORDER BY ord", params=[index]).to_arrow_table()
        duplicate[ordinals.column("ord").to_numpy()] = True
        write_attributes(job, prefix, duplicate, settings, stats)
    connection.close()
    return Report("exact", stats, time.perf_counter() - started, lineage=lineage)


def _default_lineage(jobs: list[FileJob]) -> str:
    """``<attributes>/<name>/lineage.parquet`` next to the first file's attribute tree."""
    first = jobs[0].attributes if jobs else "lineage"
    marker = first.find("/attributes/")
    root = first[: first.index("/", marker + len("/attributes/")) + 1] if marker >= 0 else os.path.dirname(first) + "/"
    return root + "lineage.parquet"


def print_report(report: Report) -> None:
    from rich.table import Table

    table = Table(title=f"dedupe ({report.mode})", show_header=False)
    stats = report.stats
    rows = [
        ("files processed / skipped", f"{stats.files:,} / {stats.skipped_files:,}"),
        ("documents", f"{stats.documents:,}"),
        ("paragraphs or keyed documents", f"{stats.units:,}"),
        ("keys checked", f"{stats.keys:,}"),
        ("duplicate keys", f"{stats.duplicate_keys:,}"),
        ("spans marked", f"{stats.marked_spans:,}"),
        ("documents with a mark", f"{stats.marked_documents:,}"),
        ("bytes marked", f"{stats.marked_bytes:,}"),
    ]
    if report.fill_ratio is not None:
        rows += [
            ("filter size", f"{report.filter_bits / 8 / 2**20:,.1f} MiB, {report.filter_hashes} hash functions"),
            ("filter fill ratio", f"{report.fill_ratio:.4f}"),
            ("estimated false-positive rate", f"{report.estimated_false_positive_rate:.3g}"),
        ]
    if report.lineage:
        rows.append(("lineage table", report.lineage))
    rows.append(("seconds", f"{report.seconds:.2f}"))
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)

