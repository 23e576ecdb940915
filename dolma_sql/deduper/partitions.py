"""Every Bloom partition in one run (``dedupe.all_partitions``): dolma's ``num_partitions`` without one
command per partition.

dolma splits the key space by a hash: partition ``i`` checks only the keys whose fingerprint is ``i``
modulo ``num_partitions``, with a filter of its own, and writes the attribute set ``<name>_<i>``
(attribute ``<attribute>_<i>``); the mixer then filters on every partition's attribute. Upstream's
hash is randomly seeded, so which partition holds a key changes from run to run; here it is the key's
fingerprint, the same in every run. Each partition is one unit of the executor (so, on a cluster, its
filter lives on one worker's node): it reads every document file in input order, resolves each file
through the partition's filter ``<bloom_filter.file>.<i>`` as a single-filter run does, and resumes
from the same ledger records, so a partition's outputs are those of the run of that partition alone.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass

import msgspec

from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.bloom_run import Resolver
from dolma_sql.deduper.extract import extract_file, extract_unit
from dolma_sql.deduper.intermediates import remove_tables
from dolma_sql.deduper.plan import plan_files, settings_of, writing_of
from dolma_sql.deduper.report import Report, Stats
from dolma_sql.runtime import Executor, run_units
from dolma_sql.runtime.executor import Counters

FILTER_FIELDS = ("filter_bits", "filter_hashes", "fill_ratio", "estimated_false_positive_rate")
"""A partition's filter statistics, returned beside its counters."""


def partition_config(config: DeduperConfig, index: int) -> DeduperConfig:
    """The config of partition ``index`` run alone: dolma's ``partition_index``, and its own filter file."""
    dedupe = msgspec.structs.replace(config.dedupe, partition_index=index, all_partitions=False)
    bloom_filter = msgspec.structs.replace(config.bloom_filter, file=f"{config.bloom_filter.file}.{index}")
    return msgspec.structs.replace(config, dedupe=dedupe, bloom_filter=bloom_filter)


def partition_configs(config: DeduperConfig) -> list[DeduperConfig]:
    """The configs a run does: one per partition with ``all_partitions``, else the config itself."""
    if config.dedupe.all_partitions and config.dedupe.num_partitions > 1:
        return [partition_config(config, index) for index in range(config.dedupe.num_partitions)]
    return [config]


@dataclass(frozen=True)
class PartitionUnit:
    """One partition: ``key`` is its filter file, ``size`` the bytes of every document file (it reads them all)."""

    key: str
    size: int
    config: DeduperConfig


def run_partitions(configs: list[DeduperConfig], size: int, executor: Executor, *, quiet: bool) -> Report:
    """Run every partition as a unit of ``executor``; the report sums theirs (file counts are file passes)."""
    units = [PartitionUnit(config.bloom_filter.file, size, config) for config in configs]
    results: list[Counters] = []
    run_units(dedupe_partition, units, executor=executor, label="dedupe partitions", quiet=quiet, on_result=lambda _, counters: results.append(counters))
    stats = Stats(**{name: sum(int(counters[name]) for counters in results) for name in Stats.__dataclass_fields__})
    stats.documents = max(int(counters["documents"]) for counters in results)  # every partition reads them all
    read_only = bool(configs[0].bloom_filter.read_only)
    return Report(
        f"bloom, {len(configs)} partitions" + (" (read-only)" if read_only else ""),
        stats,
        filter_bits=sum(int(counters["filter_bits"]) for counters in results),
        filter_hashes=max(int(counters["filter_hashes"]) for counters in results),
        fill_ratio=sum(counters["fill_ratio"] for counters in results) / len(results),
        estimated_false_positive_rate=max(counters["estimated_false_positive_rate"] for counters in results),
    )


def dedupe_partition(unit: PartitionUnit) -> Counters:
    """One partition, in the worker: each file extracted in a scratch folder, then resolved, in input order."""
    config = unit.config
    settings = settings_of(config)
    jobs = plan_files(config)
    codec = config.compression.codecs()[0]
    resolver = Resolver(config, settings, jobs)
    scratch = tempfile.mkdtemp(prefix="dolma-sql-dedupe-partition-", dir=writing_of(config).staging)
    try:
        with resolver.saving():
            for index in resolver.todo:
                extracted = extract_unit(jobs[index], scratch, settings, codec)
                extract_file(extracted)
                resolver.resolve(extracted, jobs[index])
                remove_tables(extracted.prefix)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report = resolver.report()
    return {**report.stats.counters(), **{name: getattr(report, name) for name in FILTER_FIELDS}}
