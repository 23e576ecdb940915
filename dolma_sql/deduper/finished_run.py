"""The record an exact or MinHash run leaves when it succeeds, so that running it again keeps its outputs instead of
doing the work again (a Bloom run needs none: each file has a record of its own, backed by the saved filter).

Each of these runs decides every attribute file from every input file, so its one record, beside the lineage
table, is made from all of them: the options, the versions of the input files (and of the ``against`` indexes'
manifests and ``keep.attribute`` files), and the versions of the outputs as the run left them. A rerun keeps the
outputs only while all of these are the same: an input changed, an output deleted or rewritten (by hand, or by
another dedupe into the same attribute set) redoes the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.fingerprints import exact_scheme
from dolma_sql.deduper.minhash_plan import INDEX_MANIFEST
from dolma_sql.deduper.plan import FileJob, ledger_options, lineage_url, writing_of
from dolma_sql.deduper.report import Report, Stats
from dolma_sql.layout import swap_segment
from dolma_sql.runtime import Ledger
from dolma_sql.storage import urls

COMMAND = "dedupe-run"


def _index_files(index: str) -> list[str]:
    """The manifest of the signature index at ``index`` and the signature tables it lists (none yet: the manifest)."""
    manifest = urls.join(index, INDEX_MANIFEST)
    try:
        listed = json.loads(urls.read_bytes(manifest))["files"]
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return [manifest]
    return [manifest, *(urls.join(index, entry["signatures"]) for entry in listed if isinstance(entry, dict) and "signatures" in entry)]


@dataclass(frozen=True)
class _Run:
    key: str


class FinishedRun:
    """The record of the exact or MinHash run of ``config`` over ``jobs``."""

    def __init__(self, config: DeduperConfig, jobs: list[FileJob]) -> None:
        minhash = config.dedupe.minhash if config.dedupe.mode == "minhash" else None
        self.key = lineage_url(config, jobs)
        self.jobs = jobs
        self.inputs = [job.path for job in jobs]
        self.outputs = [job.attributes for job in jobs] + [self.key]
        if minhash is not None:
            self.inputs += [urls.join(index, INDEX_MANIFEST) for index in minhash.against]
            value_set = (minhash.keep.attribute or "").partition("/")[0]
            if value_set:
                self.inputs += [swap_segment(job.path, config.dedupe.document_dir, f"attributes/{value_set}") for job in jobs]
        self.index = minhash.index if minhash is not None else None
        self.options = [ledger_options(config), exact_scheme() if minhash is None else None]
        self.rename = writing_of(config).rename

    def earlier_report(self, mode: str) -> Report | None:
        """The report of a run with these options, inputs and outputs, which finished (its files counted as skipped);
        ``None`` if there was none, and then its record is removed, since the outputs are about to be replaced."""
        ledger = self._ledger()
        if ledger.to_do([_Run(self.key)]):
            return None
        recorded = ledger.counters(self.key) or {}
        stats = Stats(**{**recorded.get("stats", {}), "files": 0, "skipped_files": len(self.jobs)})
        minhash = recorded.get("minhash")
        if minhash is not None:
            minhash["stage_seconds"] = {}
        return Report(mode, stats, lineage=self.key, minhash=minhash)

    def record(self, report: Report) -> None:
        """Record the run and its report, after every output was committed."""
        ledger = self._ledger()
        with ledger.holding([self.key]):
            ledger.record(self.key, {"stats": report.stats.counters(), "minhash": report.minhash})

    def _ledger(self) -> Ledger:
        """The ledger of the run's record, made from the files as they are now (an index lists its tables once written)."""
        ledger = Ledger(COMMAND, self.options, rename=self.rename)
        ledger.track_inputs({self.key: self.inputs + self.outputs + (_index_files(self.index) if self.index else [])})
        return ledger
