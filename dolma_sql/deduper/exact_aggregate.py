"""Exact mode's aggregation, one unit per hash partition: DuckDB finds the first occurrence of every key
fingerprint of the partition over the partition's tables of every file, and writes the partition's
duplicate keys, each with the document holding its first occurrence and both documents' ids, ordered
by file and key. With a single partition, the unit finishes every file itself
(:func:`.exact_finish.finish_files`) instead, once DuckDB is closed."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from sqlglot import exp

from dolma_sql import storage
from dolma_sql.deduper.exact_finish import fetch_duplicates, fetch_ids, finish_files
from dolma_sql.deduper.exact_plan import ExactPlan, StepUnit, duckdb_connection, prefix_of, read_files, scratch_folder
from dolma_sql.deduper.intermediates import IDS_TABLE, hashes_name, local_copy, table_path
from dolma_sql.deduper.plan import FileJob
from dolma_sql.runtime.executor import Counters
from dolma_sql.sql import fill, load_sql, render
from dolma_sql.storage.commit import remove_temps


def aggregate_partition(unit: StepUnit) -> Counters:
    """Hash partition ``unit.index``; ``unit.key`` is its duplicates table."""
    plan = unit.plan
    jobs = read_files(plan)
    with scratch_folder(plan) as scratch:
        hashes, ids = _local_tables(plan, jobs, hashes_name(unit.index), scratch), _local_tables(plan, jobs, IDS_TABLE, scratch)
        connection = duckdb_connection(plan, scratch, memory_mb=plan.memory_mb)
        try:
            number = np.arange(len(jobs), dtype=np.int64)
            connection.register("hashes_list", pa.table({"file": number, "hashes_path": hashes}))
            connection.register("ids_list", pa.table({"file": number, "ids_path": ids}))
            connection.execute(render(fill(load_sql("dedupe_exact_keys"), files=_paths(hashes))))
            connection.execute(render(load_sql("dedupe_exact_duplicates")))
            connection.execute(render(fill(load_sql("dedupe_exact_ids"), files=_paths(ids))))
            if plan.partitions > 1:
                remove_temps(unit.key)  # of a writer killed before it committed
                with storage.staged(unit.key, staging=plan.writing.staging) as temp:
                    connection.execute(render(fill(load_sql("dedupe_exact_partition"), target=exp.Literal.string(temp))))
                return {"duplicate_keys": connection.execute("SELECT count(*) FROM duplicates").fetchone()[0]}
            duplicates, ids = fetch_duplicates(connection), fetch_ids(connection)
        finally:
            connection.close()
    return finish_files(plan, jobs, range(len(jobs)), duplicates, ids)


def _local_tables(plan: ExactPlan, jobs: list[FileJob], name: str, scratch: str) -> list[str]:
    """Table ``name`` of every input file, as local files that DuckDB reads."""
    return [local_copy(table_path(prefix_of(plan, job), name), scratch) for job in jobs]


def _paths(paths: list[str]) -> exp.Array:
    return exp.Array(expressions=[exp.Literal.string(path) for path in paths])
