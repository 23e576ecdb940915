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


def finish_group(unit: StepUnit) -> Counters:
    """Group ``unit.index`` of input files; ``unit.key`` is its lineage part."""
    plan = unit.plan
    jobs = read_files(plan)
    files = plan.group_files(unit.index)
    with scratch_folder(plan) as scratch:
        connection = duckdb_connection(plan, scratch)
        try:
            partitions = [file_rows(plan.duplicates_url(partition), files) for partition in range(plan.partitions)]
            connection.register("duplicates", pa.concat_tables(partitions))
            connection.execute(render(load_sql("dedupe_exact_group_ids")))
            return finish_files(plan, jobs, files, connection, part=unit.key)
        finally:
            connection.close()


def finish_files(plan: ExactPlan, jobs: list[FileJob], files: range, connection, *, part: str | None = None) -> Counters:
    """The attribute files of ``files`` and their lineage rows (into ``part``, else the lineage table), from the
    ``duplicates`` (file, ord, doc, first_file, first_doc) and document ``ids`` (file, doc, id) of ``connection``."""
    duplicates = connection.sql("SELECT file, ord FROM duplicates").to_arrow_table()
    file_column = duplicates.column("file").to_numpy()
    order = np.argsort(file_column, kind="stable")
    bounds = np.searchsorted(file_column[order], np.arange(files.start, files.stop + 1))
    ordinals = duplicates.column("ord").to_numpy()
    stats = Stats()
    for offset, index in enumerate(files):
        prefix = prefix_of(plan, jobs[index])
        duplicate = np.zeros(count_rows(prefix, "keys"), dtype=bool)
        duplicate[ordinals[order[bounds[offset] : bounds[offset + 1]]]] = True
        stats.add(write_attributes(jobs[index], prefix, duplicate, plan.settings, plan.writing))
    rows = connection.sql(render(load_sql("dedupe_exact_lineage"))).to_arrow_reader(LINEAGE_ROW_GROUP)
    write_lineage(part or plan.lineage, _with_paths(rows, pa.array([job.path for job in jobs], pa.string())), plan, final=part is None)
    return stats.counters()


def _with_paths(batches: Iterable[pa.RecordBatch], paths: pa.Array) -> Iterator[pa.RecordBatch]:
    """Lineage rows whose file columns hold file numbers, with the files' paths instead."""
    for batch in batches:
        columns = [paths.take(column) if name.endswith("_file") else column for name, column in zip(batch.schema.names, batch.columns)]
        yield pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


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
