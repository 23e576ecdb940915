"""Exact mode: DuckDB finds the first occurrence of every key fingerprint of the run with one hash
aggregation over all files (spilling to the work folder), writes the lineage table, then every
attribute file from its file's duplicate keys."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
from sqlglot import exp

from dolma_sql import storage
from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.attributes import write_attributes
from dolma_sql.deduper.extract import extract_files
from dolma_sql.deduper.intermediates import count_rows, table_path, table_prefix
from dolma_sql.deduper.plan import FileJob, Settings, lineage_url, writing_of
from dolma_sql.deduper.report import Report, Stats
from dolma_sql.runtime import Executor
from dolma_sql.sql import fill, load_sql, render
from dolma_sql.storage.commit import remove_temps


def run_exact(config: DeduperConfig, settings: Settings, jobs: list[FileJob], work: str, executor: Executor, *, quiet: bool) -> Report:
    import duckdb

    extract_files(config, settings, jobs, list(range(len(jobs))), work, executor, quiet=quiet)
    report = Report("exact", Stats())
    if not jobs:
        return report
    writing = writing_of(config)
    prefixes = [table_prefix(work, job.path, job.size) for job in jobs]
    tables = {name: [table_path(prefix, name, parquet=True) for prefix in prefixes] for name in ("keys", "docs")}
    report.lineage = lineage_url(config, jobs)
    connection = duckdb.connect(config={"temp_directory": os.path.join(work, "spill")})  # in memory, spilling to work
    try:
        file_list = {"file": np.arange(len(jobs), dtype=np.int64), "path": [job.path for job in jobs]}
        connection.register("file_list", pa.table({**file_list, "keys_path": tables["keys"], "docs_path": tables["docs"]}))
        connection.execute(render(fill(load_sql("dedupe_exact_keys"), files=_paths(tables["keys"]))))
        connection.execute(render(load_sql("dedupe_exact_duplicates")))
        connection.execute("DROP TABLE keys")  # its memory serves the lineage's sort
        connection.execute(render(fill(load_sql("dedupe_exact_docs"), files=_paths(tables["docs"]))))
        remove_temps(report.lineage)  # of a writer killed before it committed
        with storage.staged(report.lineage, staging=writing.staging, rename=writing.rename) as temp:
            connection.execute(render(fill(load_sql("dedupe_exact_lineage"), target=exp.Literal.string(temp))))
        for index, (job, prefix) in enumerate(zip(jobs, prefixes)):
            duplicate = np.zeros(count_rows(prefix, "keys"), dtype=bool)
            ordinals = connection.sql("SELECT ord FROM duplicates WHERE file = $1", params=[index]).to_arrow_table()
            duplicate[ordinals.column("ord").to_numpy()] = True
            report.stats.add(write_attributes(job, prefix, duplicate, settings, writing))
    finally:
        connection.close()
    return report


def _paths(paths: list[str]) -> exp.Array:
    return exp.Array(expressions=[exp.Literal.string(path) for path in paths])
