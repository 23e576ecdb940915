"""Exact mode's last steps: one unit per group of consecutive input files gathers the group's duplicate keys
from every hash partition, writes the group's attribute files and its part of the lineage table; then
one unit joins the parts, in file order, into the lineage table."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pyarrow as pa

from dolma_sql import storage
from dolma_sql.deduper.attributes import write_attributes
from dolma_sql.deduper.exact_plan import ExactPlan, StepUnit, duckdb_connection, prefix_of, read_files, scratch_folder
from dolma_sql.deduper.intermediates import count_rows
from dolma_sql.deduper.plan import FileJob
from dolma_sql.deduper.report import Stats
from dolma_sql.runtime.executor import Counters
from dolma_sql.runtime.tuning import release_freed_memory
from dolma_sql.sql import load_sql, render
from dolma_sql.storage import urls
from dolma_sql.storage.commit import remove_temps

LINEAGE_SCHEMA = pa.schema(
    [("duplicate_id", pa.string()), ("duplicate_file", pa.string()), ("duplicate_line", pa.int64()),
     ("kept_id", pa.string()), ("kept_file", pa.string()), ("kept_line", pa.int64())]
)  # fmt: skip
LINEAGE_ROW_GROUP = 1 << 17
"""Rows per row group of the lineage table, whatever the parts it is joined from (so that its bytes do
not depend on the number of partitions)."""
ORD_BITS = 40
"""A key's place in checking order is ``file << ORD_BITS | ord``, as in ``dedupe_exact_keys.sql``."""
RELEASE_BYTES = 64 << 20
"""Input bytes of attribute files written between two hand-backs of the memory they freed."""


def finish_group(unit: StepUnit) -> Counters:
    """Group ``unit.index`` of input files; ``unit.key`` is its lineage part."""
    plan = unit.plan
    jobs = read_files(plan)
    files = plan.group_files(unit.index)
    parts = [file_rows(plan.duplicates_url(partition), files) for partition in range(plan.partitions)]
    duplicates = pa.concat_tables(parts, promote_options="default")  # a partition whose ids are all present has them "not null"
    with scratch_folder(plan) as scratch:
        connection = duckdb_connection(plan, scratch, memory_mb=plan.memory_mb)
        try:
            connection.register("duplicates", duplicates)
            connection.execute(render(load_sql("dedupe_exact_group_ids")))
            ids = fetch_ids(connection)
        finally:
            connection.close()
    found = narrow_columns(duplicates.select(list(DUPLICATE_COLUMNS)).to_batches(), duplicates.num_rows)
    del duplicates
    return finish_files(plan, jobs, files, found, ids, part=unit.key)


DUPLICATE_COLUMNS = {"file": np.int32, "ord": np.int64, "doc": np.uint32, "first_file": np.int32, "first_doc": np.uint32}
"""A duplicate key: its file and row in the file's keys, its document, and the file and document of its
key's first occurrence; each held as the narrowest type its values fit (files number fewer than 2^23)."""


def fetch_duplicates(connection) -> dict[str, np.ndarray]:
    """The ``duplicates`` table of ``connection``, out of DuckDB (so that it can be closed), streamed into
    arrays of its size: DuckDB never holds a second copy of it as a query result."""
    rows = connection.sql("SELECT count(*) FROM duplicates").fetchall()[0][0]
    return narrow_columns(connection.sql(f"SELECT {', '.join(DUPLICATE_COLUMNS)} FROM duplicates").to_arrow_reader(LINEAGE_ROW_GROUP), rows)


def narrow_columns(batches: Iterable[pa.RecordBatch], rows: int) -> dict[str, np.ndarray]:
    """The :data:`DUPLICATE_COLUMNS` of ``rows`` duplicate keys, filled batch by batch into arrays of their types."""
    columns = {name: np.empty(rows, dtype) for name, dtype in DUPLICATE_COLUMNS.items()}
    start = 0
    for batch in batches:
        for name, column in columns.items():
            column[start : start + batch.num_rows] = batch.column(name).to_numpy()
        start += batch.num_rows
    return columns


def fetch_ids(connection) -> pa.Table:
    """The ``ids`` table (file, doc, id) of ``connection``: the id of every document a duplicate key names."""
    return connection.sql("SELECT file, doc, id FROM ids").to_arrow_table()


def finish_files(plan: ExactPlan, jobs: list[FileJob], files: range, duplicates: dict[str, np.ndarray], ids: pa.Table, *, part: str | None = None) -> Counters:
    """The attribute files of ``files`` and their lineage rows (into ``part``, else the lineage table), from
    their ``duplicates`` (:data:`DUPLICATE_COLUMNS`) and the ``ids`` of the documents these name."""
    order = np.argsort(_positions(duplicates["file"], duplicates["ord"]))  # checking order: file, then key
    sorted_files = duplicates["file"][order]
    bounds = np.searchsorted(sorted_files, np.arange(files.start, files.stop + 1))
    del sorted_files
    stats = Stats()
    released = 0
    for offset, index in enumerate(files):
        prefix = prefix_of(plan, jobs[index])
        duplicate = np.zeros(count_rows(prefix, "keys"), dtype=bool)
        duplicate[duplicates["ord"][order[bounds[offset] : bounds[offset + 1]]]] = True
        stats.add(write_attributes(jobs[index], prefix, duplicate, plan.settings, plan.writing))
        released += jobs[index].size
        if released >= RELEASE_BYTES:  # a file's tables and text, freed, are not what the lineage allocates
            release_freed_memory()
            released = 0
    del duplicates["ord"]  # the lineage needs only the documents
    release_freed_memory()
    paths = pa.array([job.path for job in jobs], pa.string())
    write_lineage(part or plan.lineage, _lineage_batches(duplicates, ids, order, paths), plan, final=part is None)
    return stats.counters()


def _positions(files: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``file << ORD_BITS | row``: one sortable number per (file, row)."""
    return (files.astype(np.int64) << ORD_BITS) | rows.astype(np.int64)


def _lineage_batches(duplicates: dict[str, np.ndarray], ids: pa.Table, order: np.ndarray, paths: pa.Array) -> Iterator[pa.RecordBatch]:
    """The lineage rows, one per duplicate key in ``order``, a row group at a time: both documents' ids
    (looked up in ``ids`` by (file, doc)), files and lines."""
    id_positions = _positions(ids.column("file").to_numpy(), ids.column("doc").to_numpy())
    id_order = np.argsort(id_positions)
    id_positions = id_positions[id_order]
    id_values = ids.column("id").take(pa.array(id_order)).combine_chunks().cast(pa.string())
    for start in range(0, len(order), LINEAGE_ROW_GROUP):
        release_freed_memory()  # the row group written before: its strings are not this one's sizes
        rows = order[start : start + LINEAGE_ROW_GROUP]
        columns = []
        for file_name, doc_name in (("file", "doc"), ("first_file", "first_doc")):
            file, doc = duplicates[file_name][rows], duplicates[doc_name][rows]
            columns += [id_values.take(np.searchsorted(id_positions, _positions(file, doc))), paths.take(file), doc.astype(np.int64) + 1]
        yield pa.RecordBatch.from_arrays(columns, schema=LINEAGE_SCHEMA)


def file_rows(url: str, files: range) -> pa.Table:
    """The rows of ``files`` in a table ordered by file: only the row groups whose file statistics overlap them are read."""
    import pyarrow.parquet as pq

    with urls.open_input(url) as handle:
        parquet = pq.ParquetFile(handle)
        column = parquet.schema_arrow.get_field_index("file")
        wanted = []
        for index in range(parquet.metadata.num_row_groups):
            statistics = parquet.metadata.row_group(index).column(column).statistics
            if statistics is None or not statistics.has_min_max or (statistics.max >= files.start and statistics.min < files.stop):
                wanted.append(index)
        table = parquet.read_row_groups(wanted) if wanted else parquet.schema_arrow.empty_table()
    file = table.column("file").to_numpy()
    return table.filter(pa.array((file >= files.start) & (file < files.stop)))


def join_lineage(unit: StepUnit) -> Counters:
    """The lineage table (``unit.key``) from every group's part, in group order."""
    import pyarrow.parquet as pq

    plan = unit.plan

    def rows() -> Iterable[pa.RecordBatch]:
        for group in range(len(plan.groups) - 1):
            with urls.open_input(plan.lineage_part_url(group)) as handle:
                yield from pq.ParquetFile(handle).iter_batches(batch_size=LINEAGE_ROW_GROUP)

    return {"lineage_rows": write_lineage(unit.key, rows(), plan, final=True)}


def write_lineage(url: str, batches: Iterable[pa.RecordBatch], plan: ExactPlan, *, final: bool, schema: pa.Schema = LINEAGE_SCHEMA) -> int:
    """Write rows in row groups of :data:`LINEAGE_ROW_GROUP` (the last one shorter), so that the same rows
    make the same bytes however they were split; ``final``: the lineage table itself (written as outputs are).
    ``schema``: exact mode's columns, or minhash mode's."""
    import pyarrow.parquet as pq

    remove_temps(url)  # of a writer killed before it committed
    count = 0
    with storage.staged(url, staging=plan.writing.staging, rename=plan.writing.rename or not final) as temp:
        with pq.ParquetWriter(temp, schema) as writer:
            pending = schema.empty_table()
            for batch in batches:
                count += batch.num_rows
                pending = pa.concat_tables([pending, pa.Table.from_batches([batch]).cast(schema)])
                whole = pending.num_rows // LINEAGE_ROW_GROUP * LINEAGE_ROW_GROUP
                if whole:
                    writer.write_table(pending.slice(0, whole), row_group_size=LINEAGE_ROW_GROUP)
                    pending = pending.slice(whole)
            if pending.num_rows:
                writer.write_table(pending, row_group_size=LINEAGE_ROW_GROUP)
    return count
