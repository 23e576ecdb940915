"""What every unit of an exact run shares: the work folder (a URL all workers reach), the number of hash
partitions, the groups of consecutive files that the finishing units take, and the table of input files."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from dolma_sql import storage
from dolma_sql.deduper.intermediates import local_copy, table_prefix
from dolma_sql.deduper.plan import FileJob, Settings, Writing
from dolma_sql.storage import urls


@dataclass(frozen=True)
class ExactPlan:
    """``groups[q]`` is the first file of group ``q``; the last entry is the number of files. ``sharing``: how
    many units of a step run at once on one machine (each DuckDB takes its share of the cores and memory).
    ``memory_mb``: the memory a unit's DuckDB holds at most (``dedupe.exact_memory_mb``)."""

    work: str
    settings: Settings
    writing: Writing
    partitions: int
    groups: tuple[int, ...]
    lineage: str
    sharing: int = 1
    memory_mb: int | None = None

    @property
    def files_url(self) -> str:
        return urls.join(self.work, "files.parquet")

    def duplicates_url(self, partition: int) -> str:
        """Partition ``partition``'s duplicate keys, ordered by file and key (written by its aggregation)."""
        return urls.join(self.work, f"duplicates-{partition}.parquet")

    def lineage_part_url(self, group: int) -> str:
        return urls.join(self.work, f"lineage-{group}.parquet")

    def group_files(self, group: int) -> range:
        return range(self.groups[group], self.groups[group + 1])


@dataclass(frozen=True)
class StepUnit:
    """A unit of one step: hash partition or file group ``index``; ``key`` is its main output, ``size`` its input bytes."""

    key: str
    size: int
    plan: ExactPlan
    index: int = 0


def file_groups(files: int, partitions: int) -> tuple[int, ...]:
    """Consecutive files in at most ``partitions`` groups of nearly equal counts."""
    count = max(1, min(files, partitions))
    return tuple(int(x) for x in np.linspace(0, files, count + 1).round().astype(np.int64))


def write_files(plan: ExactPlan, jobs: list[FileJob]) -> None:
    """The input files in order, which units read instead of carrying the list."""
    import pyarrow.parquet as pq

    table = pa.table({"path": [job.path for job in jobs], "attributes": [job.attributes for job in jobs], "size": [job.size for job in jobs]})
    with storage.staged(plan.files_url, staging=plan.writing.staging) as temp:
        pq.write_table(table, temp)


def read_files(plan: ExactPlan) -> list[FileJob]:
    import pyarrow.parquet as pq

    with scratch_folder(plan) as scratch:
        table = pq.read_table(local_copy(plan.files_url, scratch))
    return [FileJob(path, attributes, size) for path, attributes, size in zip(*(table.column(name).to_pylist() for name in ("path", "attributes", "size")))]


def prefix_of(plan: ExactPlan, job: FileJob) -> str:
    return table_prefix(plan.work, job.path, job.size)


@contextlib.contextmanager
def scratch_folder(plan: ExactPlan) -> Iterator[str]:
    """A local folder of this process for downloads and DuckDB's spill files, removed after."""
    folder = tempfile.mkdtemp(prefix="dolma-sql-dedupe-", dir=plan.writing.staging)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def duckdb_connection(plan: ExactPlan, scratch: str, *, memory_mb: int | None = None):
    """DuckDB with this unit's share of the machine's cores and memory, and at most ``memory_mb`` of
    memory when given (it spills beyond)."""
    import duckdb
    import psutil

    threads = max(1, (os.cpu_count() or 1) // plan.sharing)
    memory = int(0.8 * psutil.virtual_memory().total / plan.sharing)
    if memory_mb is not None:
        memory = min(memory, memory_mb << 20)
    return duckdb.connect(config={"threads": threads, "memory_limit": f"{memory // 2**20}MB", "temp_directory": os.path.join(scratch, "spill")})
