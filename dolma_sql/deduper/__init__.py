"""``dedupe``: dolma's deduper (Bloom filter), an exact mode and a MinHash near-duplicate mode, all deterministic.

A run plans the input files (:mod:`.plan`), extracts each file's keys in parallel units
(:mod:`.extract`: :mod:`.keys` in dolma's checking order, :mod:`.fingerprints`, tables in
:mod:`.intermediates`), resolves the duplicates in input-file order (:mod:`.bloom_run` through the
filter of :mod:`.bloom`, or :mod:`.exact_run` with DuckDB aggregations in hash-partition units),
writes the attribute files (:mod:`.attributes`) and returns its :mod:`.report`. Minhash mode
(:mod:`.minhash_run`) has stages of its own. With
``dedupe.all_partitions`` every Bloom partition is one unit (:mod:`.partitions`). Outputs do not
depend on the number of processes, the executor, or the order units finish in; a killed run resumes
from its ledgers.
"""

from __future__ import annotations

import time

from dolma_sql import storage
from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.finished_run import FinishedRun
from dolma_sql.deduper.plan import ATTRIBUTE_RECORDS, FileJob, lineage_url, plan_files, settings_of, work_folder, writing_of
from dolma_sql.deduper.report import Report, print_report, write_report
from dolma_sql.runtime import Executor, Ledger
from dolma_sql.runtime.progress import warn
from dolma_sql.storage import urls

__all__ = ["DeduperConfig", "Report", "plan_files", "print_report", "run"]


def run(config: DeduperConfig, *, executor: Executor, quiet: bool = False) -> Report:
    """Deduplicate the documents of ``config`` on ``executor``: write the attribute files (and the Bloom
    filter, or exact mode's lineage table), the JSON report when ``config.report`` names one, and return the report."""
    from dolma_sql.deduper.partitions import partition_configs, run_partitions  # here: workers import this package for extract_file alone

    started = time.perf_counter()
    configs = partition_configs(config)
    plans = [plan_files(part, warn=warn if index == 0 else None) for index, part in enumerate(configs)]
    for part, jobs in zip(configs, plans):
        _check_destinations(part, jobs)
    if len(configs) > 1:
        report = run_partitions(configs, sum(job.size for job in plans[0]), executor, quiet=quiet)
    else:
        report = _run_one(config, plans[0], executor, quiet=quiet)
    report.seconds = time.perf_counter() - started
    if config.report:
        writing = writing_of(config)
        write_report(report, config.report, staging=writing.staging, rename=writing.rename)
    return report


def _run_one(config: DeduperConfig, jobs: list[FileJob], executor: Executor, *, quiet: bool) -> Report:
    """One (unpartitioned) run, holding the run lock of the attribute folders throughout: two runs at once would
    mix their files; an exact or MinHash run that finished with these options and inputs is kept."""
    work = work_folder(config, jobs)
    with Ledger("dedupe", None).holding(job.attributes for job in jobs):
        finished = FinishedRun(config, jobs) if config.dedupe.mode in ("exact", "minhash") and jobs else None
        report = finished.earlier_report(config.dedupe.mode) if finished is not None else None
        if report is None:
            _forget_other_modes(config, jobs)
            report = _run_mode(config, jobs, work, executor, quiet=quiet)
            if finished is not None:
                finished.record(report)
    urls.remove_tree(work)  # kept after a failure: the rerun reuses the files it extracted
    return report


def _forget_other_modes(config: DeduperConfig, jobs: list[FileJob]) -> None:
    """Remove the records that runs of the other modes left for these attribute files, which this run rewrites: a later
    run of such a mode must not keep this run's files as its own."""
    names: dict[str, set[str]] = {}
    for job in jobs:
        names.setdefault(urls.parent(job.attributes), set()).add(urls.name(job.attributes))
    for mode, command in ATTRIBUTE_RECORDS.items():
        if mode == config.dedupe.mode:
            continue
        ledger = Ledger(command, None)
        for folder, wanted in names.items():
            for name, records in ledger.recorded_outputs(folder).items():
                if name in wanted:
                    for record in records:
                        urls.remove(record)


def _run_mode(config: DeduperConfig, jobs: list[FileJob], work: str, executor: Executor, *, quiet: bool) -> Report:
    settings = settings_of(config)
    if config.dedupe.mode == "minhash":  # each mode's modules imported alone (exact's bring sqlglot, minhash's Polars)
        from dolma_sql.deduper.minhash_run import run_minhash

        return run_minhash(config, jobs, work, executor, quiet=quiet)
    if settings.exact:
        from dolma_sql.deduper.exact_run import run_exact

        return run_exact(config, settings, jobs, work, executor, quiet=quiet)
    from dolma_sql.deduper.bloom_run import run_bloom

    return run_bloom(config, settings, jobs, work, executor, quiet=quiet)


def _check_destinations(config: DeduperConfig, jobs: list[FileJob]) -> None:
    """Fail before any work when an output cannot be written (a volume that cannot rename has no probe)."""
    if config.is_s3_volume:
        return
    folders = {urls.parent(job.attributes): "documents" for job in jobs}
    if config.dedupe.mode in ("exact", "minhash") and jobs:
        folders.setdefault(urls.parent(lineage_url(config, jobs)), "dedupe.lineage")
    elif config.dedupe.mode == "bloom" and not config.bloom_filter.read_only:
        folders.setdefault(urls.parent(config.bloom_filter.file), "bloom_filter.file")
    if config.report:
        folders.setdefault(urls.parent(config.report), "report")
    for folder, where in folders.items():
        storage.check_writable(folder, where=where)
