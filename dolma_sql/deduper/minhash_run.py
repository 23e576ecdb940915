"""Minhash mode (``dedupe.minhash``): near-duplicate documents by MinHash-LSH, in four stages of units on the
executor, each resumable through its ledger:

1. signatures, one unit per document file (:mod:`.minhash_sign`), into the signature index when
   ``minhash.index`` names one, else the work folder;
2. LSH, one unit per band, and 3. clusters, one unit (:mod:`.minhash_clusters`);
4. attribute files, one unit per document file (:mod:`.minhash_attributes`).

Stages 2-4 are recorded with a fingerprint of their inputs (the work folder is named by the options and the
files; the ``against`` indexes' manifests are added), so a rerun after a kill resumes at the first unfinished
unit and never mixes outputs built from other inputs.
"""

from __future__ import annotations

import dataclasses
import json
import time

import pyarrow.parquet as pq

from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.exact_plan import StepUnit
from dolma_sql.deduper.exact_run import run_recorded
from dolma_sql.deduper.minhash_attributes import AttributeUnit, write_file_attributes
from dolma_sql.deduper.minhash_clusters import cluster_documents, find_band_edges
from dolma_sql.deduper.minhash_plan import IndexedFile, MinhashPlan, read_index, shingling_of, write_files, write_index
from dolma_sql.deduper.minhash_sign import SignatureUnit, sign_file
from dolma_sql.deduper.plan import ATTRIBUTE_RECORDS, FileJob, lineage_url, writing_of
from dolma_sql.deduper.report import Report, Stats
from dolma_sql.layout import swap_segment
from dolma_sql.runtime import Executor, Ledger, run_units
from dolma_sql.runtime.progress import warn
from dolma_sql.storage import urls


def run_minhash(config: DeduperConfig, jobs: list[FileJob], work: str, executor: Executor, *, quiet: bool) -> Report:
    minhash = config.dedupe.minhash
    shingling = shingling_of(config)
    writing = writing_of(config)
    existing, manifests = [], []
    for index, url in enumerate(minhash.against):
        files, manifest = read_index(url, shingling, f"dedupe.minhash.against[{index}]")
        existing += files
        manifests.append(manifest)
    signatures = urls.join(minhash.index, "signatures") if minhash.index else urls.join(work, "signatures")
    plan = MinhashPlan(
        work, signatures, shingling, minhash.attribute_name, minhash.keep.by, minhash.threshold, writing,
        lineage_url(config, jobs) if jobs else "", sharing=max(1, config.processes),
    )  # fmt: skip
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    new = _sign(config, plan, jobs, executor, quiet)
    seconds["signatures"] = time.perf_counter() - started
    report = Report("minhash", Stats())
    if not jobs:
        return report
    files = existing + new
    write_files(plan, files)
    if minhash.index:
        write_index(minhash.index, shingling, new, writing)
    inputs = [urls.name(work), manifests]
    size = sum(job.size for job in jobs)
    started = time.perf_counter()
    bands = [StepUnit(plan.edges_url(band), size // shingling.num_bands, plan, band) for band in range(shingling.num_bands)]
    run_units(find_band_edges, bands, executor=executor, label="dedupe: lsh", ledger=Ledger("dedupe-minhash-lsh", inputs), quiet=quiet)
    seconds["lsh"] = time.perf_counter() - started
    started = time.perf_counter()
    clusters = [StepUnit(plan.members_url, size, dataclasses.replace(plan, sharing=1))]  # alone: every core
    run_units(cluster_documents, clusters, executor=executor, label="dedupe: clusters", ledger=Ledger("dedupe-minhash-clusters", inputs), quiet=quiet)
    seconds["clusters"] = time.perf_counter() - started
    started = time.perf_counter()
    offset = len(existing)
    units = [AttributeUnit(job.attributes, job.size, plan, offset + index, new[index].signatures) for index, job in enumerate(jobs)]
    ledger = Ledger(ATTRIBUTE_RECORDS["minhash"], inputs, rename=writing.rename)
    totals = run_recorded(write_file_attributes, units, "dedupe: attributes", ledger, executor, quiet)
    seconds["outputs"] = time.perf_counter() - started
    report.stats = Stats(**{name: int(totals.get(name, 0)) for name in ("documents", "files", "marked_documents", "marked_spans")})
    figures = json.loads(urls.read_bytes(plan.report_url))
    documents = report.stats.documents
    figures["fraction_removed"] = figures["removed_documents"] / documents if documents else 0.0
    figures["stage_seconds"] = {name: round(value, 3) for name, value in seconds.items()}
    report.minhash = figures
    report.lineage = plan.lineage
    return report


def _sign(config: DeduperConfig, plan: MinhashPlan, jobs: list[FileJob], executor: Executor, quiet: bool) -> list[IndexedFile]:
    """Stage 1: the signature table of every file (those the ledger has are kept); the run's files with their documents."""
    keep = config.dedupe.minhash.keep
    value_set, _, value_key = (keep.attribute or "").partition("/")
    codec = config.compression.codecs()[0]
    units = []
    for job in jobs:
        value_file = swap_segment(job.path, config.dedupe.document_dir, f"attributes/{value_set}") if keep.attribute else None
        units.append(SignatureUnit(plan.signature_url(job), job.size, job.path, plan.shingling, codec, keep.field, value_key or None, value_file, plan.writing.staging))
    ledger = Ledger("dedupe-minhash-signatures", [plan.shingling.__dict__, keep.field, keep.attribute, codec])
    totals = run_recorded(sign_file, units, "dedupe: signatures", ledger, executor, quiet)
    if (keep.field or keep.attribute) and totals.get("documents") and not totals.get("valued_documents"):
        named = f"dedupe.minhash.keep.field {keep.field!r}" if keep.field else f"dedupe.minhash.keep.attribute {keep.attribute!r}"
        warn(f"{named} has no number in any document: every cluster keeps its first document by (file, line)")
    return [IndexedFile(job.path, unit.key, _rows(unit.key), True) for job, unit in zip(jobs, units)]


def _rows(url: str) -> int:
    with urls.open_input(url) as handle:
        return pq.read_metadata(handle).num_rows
