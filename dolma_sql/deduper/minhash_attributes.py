"""Stage 4 of a minhash run, one unit per document file: its attribute file, line-aligned with the documents
(``{"attributes":{...},"id":...}``, the shape of the other modes). A document in a cluster gets document-level
spans ``<attribute>_cluster_id`` and ``<attribute>_cluster_size`` (integers); a removed one also ``<attribute>``
with score 1. The cluster rows come from ``members.parquet``, the ids and text lengths from the file's signature table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql import storage
from dolma_sql.deduper.exact_finish import file_rows
from dolma_sql.deduper.minhash_plan import MinhashPlan
from dolma_sql.formats.attributes import Spans, encode_attribute_fields, encode_objects
from dolma_sql.runtime.executor import Counters
from dolma_sql.storage import urls
from dolma_sql.storage.commit import remove_temps


@dataclass(frozen=True)
class AttributeUnit:
    """``key``: the attribute file of the document file numbered ``file``, whose signature table is ``signatures``."""

    key: str
    size: int
    plan: MinhashPlan
    file: int
    signatures: str


def _integers(values: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(values.astype(np.int64)), pa.large_string())


def write_file_attributes(unit: AttributeUnit) -> Counters:
    import pyarrow.parquet as pq

    plan = unit.plan
    with urls.open_input(unit.signatures) as handle:
        documents = pq.read_table(handle, columns=["id", "length"])
    members = file_rows(plan.members_url, range(unit.file, unit.file + 1))
    rows = members.column("line").to_numpy() - 1
    lengths = documents.column("length").to_numpy()[rows]
    removed = members.column("removed").to_numpy(zero_copy_only=False)

    def spans(where: np.ndarray, scores: np.ndarray) -> Spans:
        return Spans(rows[where], np.zeros(int(where.sum()), np.int64), lengths[where], scores[where])

    everyone = np.ones(len(rows), dtype=bool)
    keyed = [
        (plan.attribute, spans(removed, np.ones(len(rows))), False),
        (f"{plan.attribute}_cluster_id", spans(everyone, members.column("cluster_id").to_numpy()), False),
        (f"{plan.attribute}_cluster_size", spans(everyone, members.column("cluster_size").to_numpy()), False),
    ]
    attributes = encode_attribute_fields(documents.num_rows, keyed, score_text=_integers)
    ids = documents.column("id").combine_chunks().cast(pa.large_string())
    remove_temps(unit.key)  # of a writer killed before it committed
    with storage.output(unit.key, codec=plan.writing.codec, staging=plan.writing.staging, rename=plan.writing.rename) as writer:
        writer.write(encode_objects([("attributes", attributes), ("id", ids)]))
    return {"documents": documents.num_rows, "files": 1, "marked_documents": int(removed.sum()), "marked_spans": int(removed.sum())}
