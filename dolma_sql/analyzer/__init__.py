"""``dolma stat``: histograms of every attribute's span scores and lengths.

The counts equal upstream dolma 1.2.1's, which come from a two-level procedure that this package
follows step by step: each attribute file is summarised on its own (:mod:`.attribute_file`:
values counted into fixed buckets, :mod:`.histogram`; when a file has more distinct buckets than
``bins``, they are folded into ``bins`` equal-width bins whose left edges stand in for them), and
the per-file summaries are bucketed again, merged, and folded once more (:func:`run`).
Each summary also carries a :class:`~dolma_sql.analyzer.histogram.Detail` of its values for the
printed quantiles and the plots (:func:`analyze`); the report is dolma's lines alone.

Each file is one unit of work. Its summary is written into the work folder (``work_dir.output``,
else a temporary folder) under a name that holds the file's URL and version (size and
modification time, or an object store's ETag) and the options, and the ledger records it there:
a rerun with the same work folder skips the files it has, and summarises a changed file again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile

import msgspec

from dolma_sql import storage
from dolma_sql.config.stat import StatConfig
from dolma_sql.runtime import Executor, Ledger, run_units
from dolma_sql.runtime.progress import warn
from dolma_sql.analyzer.attribute_file import StatUnit, summarize_file
from dolma_sql.analyzer.histogram import DETAIL_STEPS, DetailedSummary, Summary, Tracker
from dolma_sql.storage import urls

REPORT_NAME = "summaries.jsonl.gz"

__all__ = ["DetailedSummary", "Summary", "analyze", "attribute_files", "report_url", "run"]


def run(config: StatConfig, *, executor: Executor) -> list[Summary]:
    """dolma's ``<attribute>/score`` and ``<attribute>/length`` summaries of the attribute files, in
    first-seen order (the lines of the report); written to ``report`` and drawn into ``plot`` when the config names them."""
    return [summary.report_line() for summary in analyze(config, executor=executor)]


def analyze(config: StatConfig, *, executor: Executor) -> list[DetailedSummary]:
    """:func:`run`, with the detail of each summary's values."""
    files = attribute_files(config.attributes)
    kept = config.work_dir.output
    for folder, where in ((config.report, "report"), (config.plot, "plot"), (kept, "work_dir.output")):
        if folder:
            storage.check_writable(folder, where=where)
    staging = kept if kept and urls.is_local(kept) else None  # remote outputs are staged in a local work folder
    ledger = Ledger("stat", {"bins": config.bins, "regex": config.regex, "detail": DETAIL_STEPS})
    executor.prepare("dolma_sql.analyzer.attribute_file")
    with contextlib.nullcontext(kept) if kept else tempfile.TemporaryDirectory(prefix="dolma-sql-stat-") as work:
        units = [StatUnit(path, _partial_url(work, path, ledger), urls.size(path), config.bins, config.regex) for path in files]
        run_units(summarize_file, units, executor=executor, label="stat", ledger=ledger)
        summaries = _aggregate([unit.key for unit in units], config.bins)
    if config.report:
        _write_report(summaries, report_url(config.report), staging=staging)
    if config.plot:
        from dolma_sql.analyzer.plots import plot

        plot(summaries, config.plot, scale=config.scale, staging=staging)
    return summaries


NOT_ATTRIBUTE_FILES = (".parquet", ".tmp")
"""Files in a set's folder that are no attribute files: the tables ``dedupe`` writes beside them (its lineage), and the
temporary files of a run that was killed (a rerun of that run removes them)."""


def attribute_files(patterns: list[str]) -> list[str]:
    """The attribute files of dolma's ``attributes`` globs; a folder stands for the files in it (as in dolma), but for
    those of :data:`NOT_ATTRIBUTE_FILES`."""
    folders = {pattern for pattern in patterns if _is_folder(pattern)}
    files = urls.expand_globs([urls.join(pattern, "*") if pattern in folders else pattern for pattern in patterns], config_path="attributes", warn=warn)
    given = {folder.rstrip("/") for folder in folders}
    return [path for path in files if not (path.endswith(NOT_ATTRIBUTE_FILES) and urls.parent(path) in given)]


def _is_folder(url: str) -> bool:
    return not urls.isfile(url) and bool(urls.listdir(url))


def _partial_url(work: str, path: str, ledger: Ledger) -> str:
    """The per-file summary of ``path`` in ``work``: its name changes with the file's URL and version and
    with the options, so that a rerun reuses only a summary of these bytes made with these options."""
    local = urls.local_path(path)
    identity = os.path.abspath(local) if local is not None else path
    digest = hashlib.sha1(f"{identity}\0{urls.version(path)}\0{ledger.fingerprint}".encode()).hexdigest()[:20]
    return urls.join(work, f"{urls.name(path)}.{digest}.jsonl")


def _aggregate(partials: list[str], bins: int) -> list[DetailedSummary]:
    """Merge the per-file summaries in file order; memory holds the buckets, not the files."""
    decode = msgspec.json.Decoder(DetailedSummary).decode
    trackers: dict[str, Tracker] = {}
    for partial in partials:
        for line in storage.read_bytes(partial).splitlines():
            summary = decode(line)
            trackers.setdefault(summary.name, Tracker()).add_summary(summary)
    return [tracker.summary(name, bins) for name, tracker in trackers.items()]


def report_url(folder: str) -> str:
    return urls.join(folder, REPORT_NAME)


def _write_report(summaries: list[DetailedSummary], url: str, *, staging: str | None) -> None:
    encoder = msgspec.json.Encoder()
    with storage.output(url, staging=staging) as writer:
        for summary in summaries:
            writer.write(encoder.encode(summary.report_line()) + b"\n")
