"""The intermediate tables of one input file, in the run's work folder (any URL): its documents, units and
keys, and in exact mode its documents' ids (``ids``) and its key fingerprints split by hash partition
(``hashes-<p>``).

The tables that DuckDB scans (exact mode's ids and fingerprints) are Parquet; the others are uncompressed
Arrow IPC (a local one is mapped back, the cheapest round trip). A file's tables are named by its path and
size, not by its position, so a rerun with other files still finds the ones it has.
"""

from __future__ import annotations

import os

import pyarrow as pa
import xxhash

from dolma_sql import storage
from dolma_sql.storage import urls

TABLES = ("docs", "units", "keys")
IDS_TABLE = "ids"
"""Exact mode: each document's id as the lineage table shows it, with its row (``doc``)."""


def table_prefix(work: str, path: str, size: int) -> str:
    return urls.join(work, xxhash.xxh64_hexdigest(f"{path}\0{size}".encode()))


def table_path(prefix: str, name: str) -> str:
    return f"{prefix}.{name}.{'parquet' if _is_parquet(name) else 'arrow'}"


def hashes_name(partition: int) -> str:
    """The table of a file's key fingerprints that fall in hash partition ``partition`` (exact mode)."""
    return f"hashes-{partition}"


def _is_parquet(name: str) -> bool:
    return name == IDS_TABLE or name.startswith("hashes-")


def write_table(table: pa.Table, prefix: str, name: str) -> None:
    with storage.staged(table_path(prefix, name)) as temp:
        if _is_parquet(name):
            import pyarrow.parquet as pq

            pq.write_table(table, temp, compression="none", use_dictionary=False, write_statistics=False)  # nothing repeats much; DuckDB filters none
        else:
            import pyarrow.feather as feather

            feather.write_feather(table, temp, compression="uncompressed")


def read_table(prefix: str, name: str, *, columns: list[str] | None = None) -> pa.Table:
    """An Arrow IPC table, mapped from a local file or read whole from a remote one."""
    import pyarrow.feather as feather

    path = table_path(prefix, name)
    local = urls.local_path(path)
    if local is not None:
        return feather.read_table(local, columns=columns, memory_map=True)
    return feather.read_table(pa.BufferReader(urls.read_bytes(path)), columns=columns)


def count_rows(prefix: str, name: str) -> int:
    """Rows of an Arrow IPC table (mapped, not read, when it is local)."""
    return read_table(prefix, name, columns=[]).num_rows


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


def remove_tables(prefix: str) -> None:
    for name in TABLES:
        urls.remove(table_path(prefix, name))
