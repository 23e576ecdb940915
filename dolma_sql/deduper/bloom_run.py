"""Bloom mode: the parent feeds each file's keys to the filter in input order, as soon as the file and
every file before it are extracted, while workers go on with later files.

:meth:`BloomFilter.check_and_insert` has sequential semantics, so the first occurrence of a key is
the first in file order, then line order, whatever the number of processes or the order units
finish in. Keys repeated inside a file were found by its worker, so each distinct key is probed once.

Resume: a resolved file's ledger record (beside its attribute file) carries the number of keys the
filter holds after it. Records are written ahead of the filter checkpoint that holds their keys, and
a record is valid when that number is within the saved filter's, so a run killed at any point redoes
exactly the files whose keys the filter on disk lacks, against the filter as it was after the file
before them.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

import numpy as np

from dolma_sql.config.dedupe import BloomFilterConfig, DeduperConfig
from dolma_sql.deduper.attributes import write_attributes
from dolma_sql.deduper.bloom import BloomFilter, plan_size
from dolma_sql.deduper.extract import ExtractUnit, extract_files
from dolma_sql.deduper.fingerprints import HASH_SCHEME, fingerprinter
from dolma_sql.deduper.intermediates import read_table
from dolma_sql.deduper.plan import ATTRIBUTE_RECORDS, FileJob, Settings, ledger_options, writing_of
from dolma_sql.deduper.report import Report, Stats
from dolma_sql.errors import ConfigError, InputError
from dolma_sql.runtime import Executor, Ledger
from dolma_sql.storage import urls

FILTER_KEYS = "filter_keys"
"""The counter of a file's ledger record: the keys the filter held once the file was resolved."""

CHECKPOINT_SECONDS_VARIABLE = "DOLMA_SQL_CHECKPOINT_SECONDS"
"""Overrides ``bloom_filter.checkpoint_seconds`` (read when a run starts)."""


def run_bloom(config: DeduperConfig, settings: Settings, jobs: list[FileJob], work: str, executor: Executor, *, quiet: bool) -> Report:
    resolver = Resolver(config, settings, jobs)
    with resolver.saving():
        extract_files(config, settings, jobs, resolver.todo, work, executor, on_file=resolver.resolve, quiet=quiet)
    return resolver.report()


def open_filter(options: BloomFilterConfig) -> BloomFilter:
    """The filter of ``bloom_filter.file``, or a new one sized by the config when there is none yet."""
    canary = fingerprinter(exact=False).canary()
    if urls.exists(options.file):
        bloom = BloomFilter.load(options.file, read_only=bool(options.read_only))
        if bloom.hash_scheme != HASH_SCHEME or bloom.canary != canary:
            raise InputError(
                f"this Bloom filter was built with hash scheme {bloom.hash_scheme!r}, which this dolma-sql ({HASH_SCHEME}) cannot reproduce",
                path=options.file,
                hint="rebuild the filter with this version (rerun the dedupe with a new bloom_filter.file)",
            )
        return bloom
    if options.read_only:
        raise ConfigError(
            f"bloom_filter.read_only is set but {options.file} does not exist",
            path="bloom_filter.file",
            hint="build the filter first (a run with --no-bloom_filter.read_only), or check the path",
        )
    size = plan_size(
        size_in_bytes=options.size_in_bytes, estimated_count=options.estimated_doc_count, false_positive_rate=options.desired_false_positive_rate
    )
    return BloomFilter.create(size, hash_scheme=HASH_SCHEME, canary=canary)


def _resolved_files(ledger: Ledger, jobs: list[FileJob], bloom: BloomFilter, read_only: bool) -> set[str]:
    """The attribute files whose records the filter on disk backs; records written ahead of a checkpoint
    that never came are forgotten, so that they cannot pass for valid once the filter grows."""
    ledger.track_inputs({job.attributes: (job.path,) for job in jobs})
    ledger.forget_other_options(job.attributes for job in jobs)  # their files are (or are about to be) these options'
    recorded = ledger.finished(job.attributes for job in jobs)
    if read_only:
        return recorded
    valid = {key for key in recorded if (ledger.counters(key) or {}).get(FILTER_KEYS, bloom.inserted + 1) <= bloom.inserted}
    ledger.forget(recorded - valid)
    return valid


class Resolver:
    """Resolves extracted files in input order through the filter: probe and insert, write the attribute
    file, checkpoint. ``todo``: the indexes of the files that the ledger and the saved filter do not have."""

    def __init__(self, config: DeduperConfig, settings: Settings, jobs: list[FileJob]) -> None:
        self.settings = settings
        self.writing = writing_of(config)
        self.read_only = bool(config.bloom_filter.read_only)
        self.bloom = open_filter(config.bloom_filter)
        self.ledger = Ledger(ATTRIBUTE_RECORDS["bloom"], ledger_options(config), rename=self.writing.rename)
        resolved = _resolved_files(self.ledger, jobs, self.bloom, self.read_only)
        self.todo = [index for index, job in enumerate(jobs) if job.attributes not in resolved]
        self.filter_url = config.bloom_filter.file
        self.checkpoint_seconds = float(os.environ.get(CHECKPOINT_SECONDS_VARIABLE, config.bloom_filter.checkpoint_seconds))
        self.last_checkpoint = time.monotonic()
        self.pending: list[tuple[str, dict[str, float]]] = []
        self.consistent = True  # the filter in memory holds whole files only, each saved or pending
        self.stats = Stats(skipped_files=len(jobs) - len(self.todo))

    @contextlib.contextmanager
    def saving(self) -> Iterator[None]:
        """Checkpoint when the block ends: on success, and after a failure too (what is done stays done),
        when the filter holds whole files."""
        try:
            yield
        finally:
            if self.todo and self.consistent and not self.read_only:
                self.checkpoint()

    def report(self) -> Report:
        return Report(
            "bloom" + (" (read-only)" if self.read_only else ""),
            self.stats,
            filter_bits=self.bloom.num_bits,
            filter_hashes=self.bloom.num_hashes,
            fill_ratio=self.bloom.fill_ratio(),
            estimated_false_positive_rate=self.bloom.estimated_false_positive_rate(),
        )

    def resolve(self, unit: ExtractUnit, job: FileJob) -> None:
        keys = read_table(unit.prefix, "keys", columns=["fp0", "repeat"])
        fingerprint = keys.column("fp0").to_numpy()
        if self.read_only:  # nothing is inserted, so a key repeated inside the input is not a duplicate
            duplicate = self.bloom.check_and_insert(fingerprint, insert=False)
        else:
            self.consistent = False
            duplicate = keys.column("repeat").to_numpy().copy()
            fresh = np.flatnonzero(~duplicate)
            duplicate[fresh] = self.bloom.check_and_insert(fingerprint[fresh], insert=True, distinct=True)
        stats = write_attributes(job, unit.prefix, duplicate, self.settings, self.writing)
        self.stats.add(stats)
        if self.read_only:
            self.ledger.record(job.attributes, stats.counters())
            return
        self.pending.append((job.attributes, {**stats.counters(), FILTER_KEYS: self.bloom.inserted}))
        self.consistent = True
        if time.monotonic() - self.last_checkpoint >= self.checkpoint_seconds:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Record the files resolved since the last checkpoint, then save the filter that backs the records."""
        for key, counters in self.pending:
            self.ledger.record(key, counters)
        self.bloom.save(self.filter_url, staging=self.writing.staging, rename=self.writing.rename)
        self.pending.clear()
        self.last_checkpoint = time.monotonic()
