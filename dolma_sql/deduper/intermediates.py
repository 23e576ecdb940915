"""The intermediate tables of one input file, in the run's work folder (any URL): its documents, units and
keys, and in exact mode its key fingerprints split by hash partition (``hashes-<p>``).

Bloom mode writes uncompressed Arrow IPC (the parent maps a local one back, the cheapest round trip); exact
mode writes Parquet, which DuckDB scans. A file's tables are named by its path and size, not by its position,
so a rerun with other files still finds the ones it has.
"""

from __future__ import annotations

import os

import pyarrow as pa
import xxhash

from dolma_sql import storage
from dolma_sql.storage import urls

TABLES = ("docs", "units", "keys")


def table_prefix(work: str, path: str, size: int) -> str:
    return urls.join(work, xxhash.xxh64_hexdigest(f"{path}\0{size}".encode()))


def table_path(prefix: str, name: str, *, parquet: bool) -> str:
    return f"{prefix}.{name}.{'parquet' if parquet else 'arrow'}"


def hashes_name(partition: int) -> str:
    """The table of a file's key fingerprints that fall in hash partition ``partition`` (exact mode)."""
    return f"hashes-{partition}"


def write_table(table: pa.Table, prefix: str, name: str, *, parquet: bool) -> None:
    with storage.staged(table_path(prefix, name, parquet=parquet)) as temp:
        if parquet:
            import pyarrow.parquet as pq

            dictionaries = [field.name for field in table.schema if pa.types.is_dictionary(field.type)]  # no other column repeats much
            pq.write_table(table, temp, compression="none", use_dictionary=dictionaries)
        else:
            import pyarrow.feather as feather

            feather.write_feather(table, temp, compression="uncompressed")


def read_table(prefix: str, name: str, *, parquet: bool, columns: list[str] | None = None) -> pa.Table:
    """A table, mapped from a local file (Arrow IPC) or read whole (Parquet, and any remote table)."""
    path = table_path(prefix, name, parquet=parquet)
    local = urls.local_path(path)
    if parquet:
        import pyarrow.parquet as pq

        if local is not None:
            return pq.read_table(local, columns=columns)
        with urls.open_input(path) as handle:
            return pq.read_table(handle, columns=columns)
    import pyarrow.feather as feather

    if local is not None:
        return feather.read_table(local, columns=columns, memory_map=True)
    return feather.read_table(pa.BufferReader(urls.read_bytes(path)), columns=columns)


def count_rows(prefix: str, name: str) -> int:
    """Rows of a Parquet table, from its footer."""
    import pyarrow.parquet as pq

    path = table_path(prefix, name, parquet=True)
    local = urls.local_path(path)
    if local is not None:
        return pq.read_metadata(local).num_rows
    with urls.open_input(path) as handle:
        return pq.read_metadata(handle).num_rows


def local_copy(url: str, folder: str) -> str:
    """A local file with the bytes of ``url``: the file itself when it is local, else a download into ``folder``
    (a scratch folder of the process), for libraries that read local files only (DuckDB without httpfs)."""
    local = urls.local_path(url)
    if local is not None:
        return local
    target = os.path.join(folder, xxhash.xxh64_hexdigest(url.encode()) + "-" + urls.name(url))
    fs, path = urls.filesystem(url)
    fs.get_file(path, target)
    return target


def remove_tables(prefix: str, *, parquet: bool) -> None:
    for name in TABLES:
        urls.remove(table_path(prefix, name, parquet=parquet))
