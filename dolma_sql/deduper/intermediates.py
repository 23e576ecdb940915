"""The intermediate tables of one input file, in the run's local work folder: its documents, units and keys.

Bloom mode writes uncompressed Arrow IPC (the parent maps it back, the cheapest round trip); exact
mode writes Parquet, which DuckDB scans for every file at once. A file's tables are named by its
path and size, not by its position, so a rerun with other files still finds the ones it has.
"""

from __future__ import annotations

import os

import pyarrow as pa
import xxhash

from dolma_sql import storage
from dolma_sql.storage import urls

TABLES = ("docs", "units", "keys")


def table_prefix(work: str, path: str, size: int) -> str:
    return os.path.join(work, xxhash.xxh64_hexdigest(f"{path}\0{size}".encode()))


def table_path(prefix: str, name: str, *, parquet: bool) -> str:
    return f"{prefix}.{name}.{'parquet' if parquet else 'arrow'}"


def write_table(table: pa.Table, prefix: str, name: str, *, parquet: bool) -> None:
    with storage.staged(table_path(prefix, name, parquet=parquet)) as temp:
        if parquet:
            import pyarrow.parquet as pq

            pq.write_table(table, temp, compression="none")
        else:
            import pyarrow.feather as feather

            feather.write_feather(table, temp, compression="uncompressed")


def read_table(prefix: str, name: str, *, parquet: bool, columns: list[str] | None = None) -> pa.Table:
    path = table_path(prefix, name, parquet=parquet)
    if parquet:
        import pyarrow.parquet as pq

        return pq.read_table(path, columns=columns)
    import pyarrow.feather as feather

    return feather.read_table(path, columns=columns, memory_map=True)


def count_rows(prefix: str, name: str) -> int:
    """Rows of a Parquet table, from its footer."""
    import pyarrow.parquet as pq

    return pq.read_metadata(table_path(prefix, name, parquet=True)).num_rows


def remove_tables(prefix: str, *, parquet: bool) -> None:
    for name in TABLES:
        urls.remove(table_path(prefix, name, parquet=parquet))
