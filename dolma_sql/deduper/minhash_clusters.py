"""Stages 2 and 3 of a minhash run, in DuckDB over the signature tables (it spills to local disk, and uses the
cores its unit is given, so no step is one Python loop or one in-memory union-find):

2. LSH, one unit per band: the band's buckets holding more than one document give candidate edges, each
   document to the first document of its bucket (``edges-<band>.parquet``);
3. clusters, one unit: the bands' edges, each once (verified against ``threshold`` when set), their connected
   components by min-label propagation, the keep policy, and from them ``members.parquet`` (every document
   of the run in a cluster), the lineage table and the clustering figures. Its outputs are committed whole
   before its ledger record, so a killed run redoes it or skips it, never half of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa
from sqlglot import exp

from dolma_sql import storage
from dolma_sql.deduper.exact_finish import write_lineage
from dolma_sql.deduper.exact_plan import StepUnit, duckdb_connection, scratch_folder
from dolma_sql.deduper.intermediates import local_copy
from dolma_sql.deduper.minhash_plan import read_files
from dolma_sql.runtime.executor import Counters
from dolma_sql.sql import fill, load_sql, render
from dolma_sql.storage.commit import remove_temps

LINEAGE_SCHEMA = pa.schema(
    [("duplicate_id", pa.string()), ("duplicate_file", pa.string()), ("duplicate_line", pa.int64()),
     ("kept_id", pa.string()), ("kept_file", pa.string()), ("kept_line", pa.int64()),
     ("cluster_id", pa.int64()), ("cluster_size", pa.int64()), ("similarity", pa.float64())]
)  # fmt: skip
MEMBERS_ROW_GROUP = 1 << 16


def _strings(paths: list[str]) -> exp.Expression:
    return exp.Array(expressions=[exp.Literal.string(path) for path in paths])


def _signature_tables(unit: StepUnit, connection, scratch: str) -> list[str]:
    """Every signature table as a local file, registered with its file's numbering as ``file_list``."""
    files = read_files(unit.plan)
    local = [local_copy(url, scratch) for url in files.column("signatures").to_pylist()]
    connection.register("file_list", files.append_column("local", pa.array(local, pa.string())))
    return local


def find_band_edges(unit: StepUnit) -> Counters:
    """Band ``unit.index``; ``unit.key`` is its edge table."""
    plan = unit.plan
    with scratch_folder(plan) as scratch:
        connection = duckdb_connection(plan, scratch)
        try:
            tables = _signature_tables(unit, connection, scratch)
            remove_temps(unit.key)  # of a writer killed before it committed
            with storage.staged(unit.key, staging=plan.writing.staging) as temp:
                query = fill(load_sql("dedupe_minhash_band"), files=_strings(tables), bucket=exp.column(f"b{unit.index}"), target=exp.Literal.string(temp))
                connection.execute(render(query))
                edges = connection.execute("SELECT count(*) FROM read_parquet(?)", [temp]).fetchall()[0][0]
        finally:
            connection.close()
    return {"band_edges": edges}


def cluster_documents(unit: StepUnit) -> Counters:
    """The clusters of every band's edges; ``unit.key`` is ``members.parquet`` (the lineage table and the
    figures are written before it)."""
    plan = unit.plan
    hashes = exp.Literal.number(plan.shingling.num_hashes)
    with scratch_folder(plan) as scratch:
        connection = duckdb_connection(plan, scratch)
        try:
            tables = _signature_tables(unit, connection, scratch)
            edges = [local_copy(plan.edges_url(band), scratch) for band in range(plan.shingling.num_bands)]
            connection.execute(render(fill(load_sql("dedupe_minhash_edges"), edges=_strings(edges))))
            candidates = connection.execute("SELECT count(*) FROM edges").fetchall()[0][0]
            connection.execute(render(fill(load_sql("dedupe_minhash_nodes"), files=_strings(tables))))
            if plan.threshold is not None:
                with _joins_as_written(connection):
                    connection.execute(render(fill(load_sql("dedupe_minhash_verify"), threshold=exp.Literal.number(plan.threshold), hashes=hashes)))
                connection.execute("DROP TABLE edges")
                connection.execute("ALTER TABLE verified RENAME TO edges")
            rounds = _components(connection)
            connection.execute(render(fill(load_sql("dedupe_minhash_members"), value_order=_value_order(plan.keep))))
            figures = _figures(connection, candidates, rounds)
            with _joins_as_written(connection):
                lineage = connection.sql(render(fill(load_sql("dedupe_minhash_lineage"), hashes=hashes))).to_arrow_reader(1 << 16)
                write_lineage(plan.lineage, lineage, plan, final=True, schema=LINEAGE_SCHEMA)
            storage.write_bytes(plan.report_url, json.dumps(figures).encode(), staging=plan.writing.staging)
            remove_temps(unit.key)
            with storage.staged(unit.key, staging=plan.writing.staging) as temp:
                connection.execute(
                    "COPY (SELECT file, line, cluster_id, cluster_size, removed FROM members WHERE new ORDER BY g) "
                    f"TO '{temp}' (FORMAT parquet, ROW_GROUP_SIZE {MEMBERS_ROW_GROUP})"
                )
        finally:
            connection.close()
    return {"candidate_edges": candidates}


@contextmanager
def _joins_as_written(connection) -> Iterator[None]:
    """DuckDB's join reordering off, for the queries whose joins are ordered for memory: each join's right
    side is the one held in a hash table, so the side carrying many signatures streams past."""
    connection.execute("SET disabled_optimizers = 'join_order,build_side_probe_side'")
    try:
        yield
    finally:
        connection.execute("RESET disabled_optimizers")


def _components(connection) -> int:
    """Label every document of ``edges`` with the smallest document of its connected component; returns the rounds."""
    connection.execute("CREATE TABLE labels AS SELECT src AS v, src AS l FROM edges UNION SELECT dst, dst FROM edges")
    step = render(load_sql("dedupe_minhash_labels"))
    rounds = 0
    while True:
        rounds += 1
        connection.execute(step)
        changed = connection.execute("SELECT count(*) FROM next_labels AS n JOIN labels AS o USING (v) WHERE n.l <> o.l").fetchall()[0][0]
        connection.execute("DROP TABLE labels")
        connection.execute("ALTER TABLE next_labels RENAME TO labels")
        if not changed:
            return rounds


def _value_order(keep: str) -> exp.Expression:
    if keep == "first":
        return exp.column("g", table="n")
    return exp.Ordered(this=exp.column("value", table="n"), desc=keep == "highest", nulls_first=False)


def _figures(connection, candidates: int, rounds: int) -> dict:
    """Clusters with a document of the run: how many, their documents, the removed ones and the size histogram."""
    sizes = connection.execute(
        "SELECT cluster_size, count(*) FROM (SELECT DISTINCT cluster_id, cluster_size FROM members WHERE new) GROUP BY ALL ORDER BY 1"
    ).fetchall()
    clustered, removed = connection.execute("SELECT count(*), count(*) FILTER (removed) FROM members WHERE new").fetchall()[0]
    return {
        "candidate_edges": candidates,
        "edges": connection.execute("SELECT count(*) FROM edges").fetchall()[0][0],
        "label_rounds": rounds,
        "clusters": sum(count for _, count in sizes),
        "clustered_documents": clustered,
        "removed_documents": removed,
        "cluster_sizes": {str(size): count for size, count in sizes},
    }
