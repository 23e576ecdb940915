"""Stage 1 of a minhash run, one unit per document file: its signature table (Parquet), one row per line:
``line``, ``id`` (JSON text), ``length`` (code points of the text), ``shingles``, ``value`` (the keep policy's
number, null without one), the buckets ``b0`` .. ``b<num_bands-1>`` and the full ``signature``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql import storage
from dolma_sql.deduper.minhash_signatures import Shingling, band_hashes, signatures_of
from dolma_sql.errors import InputError
from dolma_sql.formats.documents import iter_document_batches
from dolma_sql.runtime.executor import Counters
from dolma_sql.storage import urls
from dolma_sql.storage.commit import remove_temps


@dataclass(frozen=True)
class SignatureUnit:
    """``key``: the signature table written; the keep policy's number is the dotted document field ``value_field``,
    or the first span's score of the key ``value_attribute`` in ``value_file`` (an attribute file of the documents)."""

    key: str
    size: int
    path: str
    shingling: Shingling
    codec: str | None = None
    value_field: str | None = None
    value_attribute: str | None = None
    value_file: str | None = None
    staging: str | None = None

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.path, self.value_file) if self.value_file else (self.path,)


def sign_file(unit: SignatureUnit) -> Counters:
    import pyarrow.parquet as pq

    shingling = unit.shingling
    values = _attribute_values(unit.value_file, unit.value_attribute) if unit.value_file else None
    remove_temps(unit.key)  # of a writer killed before it committed
    documents = valued = 0
    with storage.staged(unit.key, staging=unit.staging) as temp, pq.ParquetWriter(temp, signature_schema(shingling), compression="zstd", use_dictionary=False) as writer:
        fields = ("id", "text") + ((unit.value_field,) if unit.value_field else ())
        for batch in iter_document_batches(unit.path, fields=fields, json_fields=("id",), codec=unit.codec):
            texts = batch.table.column("text").combine_chunks()
            shingles, signatures = signatures_of(texts, shingling)
            if unit.value_field:
                value = _numbers(batch.table.column(unit.value_field))
            elif values is not None:
                if batch.first_line - 1 + len(batch) > len(values):
                    _misaligned(unit, len(values), f"more than {len(values)}")
                value = values[batch.first_line - 1 : batch.first_line - 1 + len(batch)]
            else:
                value = pa.nulls(len(batch), pa.float64())
            writer.write_table(_table(batch.first_line, batch.table.column("id"), texts, shingles, signatures, value, shingling))
            documents += len(batch)
            valued += len(batch) - value.null_count
        if values is not None and len(values) != documents:
            _misaligned(unit, len(values), str(documents))
    return {"documents": documents, "valued_documents": valued}


def _misaligned(unit: SignatureUnit, lines: int, documents: str) -> None:
    raise InputError(f"{unit.value_file} has {lines} lines, its documents file {unit.path} has {documents}",
                     hint="dedupe.minhash.keep.attribute must name attribute files line-aligned with the documents")  # fmt: skip


def signature_schema(shingling: Shingling) -> pa.Schema:
    buckets = [(f"b{band}", pa.uint64()) for band in range(shingling.num_bands)]
    return pa.schema([("line", pa.int64()), ("id", pa.string()), ("length", pa.int64()), ("shingles", pa.int64()), ("value", pa.float64()),
                      *buckets, ("signature", pa.list_(pa.uint64(), shingling.num_hashes))])  # fmt: skip


def _table(first_line, ids, texts, shingles, signatures, value, shingling: Shingling) -> pa.Table:
    n = len(shingles)
    buckets = band_hashes(signatures, shingling)
    columns = {
        "line": pa.array(np.arange(first_line, first_line + n, dtype=np.int64)),
        "id": pc.fill_null(ids.cast(pa.string()), "null"),
        "length": pc.utf8_length(texts.cast(pa.large_string())).cast(pa.int64()),
        "shingles": pa.array(shingles.astype(np.int64)),
        "value": value,
        **{f"b{band}": pa.array(buckets[:, band]) for band in range(shingling.num_bands)},
        "signature": pa.FixedSizeListArray.from_arrays(pa.array(signatures.reshape(-1)), shingling.num_hashes),
    }
    return pa.table(columns, schema=signature_schema(shingling))


def _numbers(column) -> pa.Array:
    """A field as doubles: numbers (or numeric strings) kept, anything else null."""
    import polars as pl

    return pl.from_arrow(column.combine_chunks().cast(pa.large_string())).cast(pl.Float64, strict=False).to_arrow().cast(pa.float64())


def _attribute_values(path: str, key: str) -> pa.Array:
    """The score of the first span of the attribute ``key`` on every line of the attribute file ``path``."""
    import polars as pl

    if not urls.exists(path):
        raise InputError("the attribute file that dedupe.minhash.keep.attribute names is missing", path=path,
                         hint="tag the documents with that attribute set first, or keep by a document field")  # fmt: skip
    parts = []
    for batch in iter_document_batches(path, fields=(f"attributes.{key}",), required=(), count_progress=False):
        spans = pl.from_arrow(batch.table.column(f"attributes.{key}").combine_chunks().cast(pa.large_string()))
        parts.append(spans.str.json_path_match("$[0][2]").cast(pl.Float64, strict=False).to_arrow().cast(pa.float64()))
    return pa.concat_arrays(parts) if parts else pa.nulls(0, pa.float64())
