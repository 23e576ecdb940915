"""Exact mode, every step a set of units on the executor, exchanging tables through the work folder (a URL
every worker reaches):

1. extraction, one unit per input file: its tables, with its key fingerprints split by hash partition;
2. aggregation, one unit per hash partition (:mod:`.exact_aggregate`): DuckDB finds each key's first
   occurrence in (file, line, key) order, and writes the partition's duplicate keys;
3. finishing, one unit per group of consecutive files (:mod:`.exact_finish`): their attribute files and
   their part of the lineage table;
4. one unit joins the lineage parts into the lineage table.

With one partition (the default: DuckDB uses every core of the machine) the aggregation unit does
steps 3 and 4 for every file itself.

A key's first occurrence is global (file, line, key) order whatever the partitions, so the outputs are
those of one aggregation over every key. Each step's units are recorded in the work folder's ledger, so
a rerun after a crash resumes at the step and units it had not finished.
"""

from __future__ import annotations

from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.exact_aggregate import aggregate_partition
from dolma_sql.deduper.exact_finish import finish_group, join_lineage
from dolma_sql.deduper.exact_plan import ExactPlan, StepUnit, file_groups, write_files
from dolma_sql.deduper.extract import extract_files
from dolma_sql.deduper.plan import FileJob, Settings, exact_partitions, ledger_options, lineage_url, writing_of
from dolma_sql.deduper.report import Report, Stats
from dolma_sql.runtime import Executor, Ledger, run_units


def run_exact(config: DeduperConfig, settings: Settings, jobs: list[FileJob], work: str, executor: Executor, *, quiet: bool) -> Report:
    extract_files(config, settings, jobs, list(range(len(jobs))), work, executor, quiet=quiet)
    report = Report("exact", Stats())
    if not jobs:
        return report
    partitions = exact_partitions(config)
    groups = file_groups(len(jobs), partitions)
    sharing = max(1, min(config.processes, partitions))
    plan = ExactPlan(work, settings, writing_of(config), partitions, groups, lineage_url(config, jobs), sharing, config.dedupe.exact_memory_mb)
    write_files(plan, jobs)
    options = [ledger_options(config), partitions]
    size = sum(job.size for job in jobs)
    aggregations = [StepUnit(plan.duplicates_url(p), size // partitions, plan, p) for p in range(partitions)]
    totals = run_recorded(aggregate_partition, aggregations, "dedupe: aggregate", Ledger("dedupe-aggregate", options), executor, quiet)
    if partitions > 1:
        finishing = [StepUnit(plan.lineage_part_url(q), sum(jobs[i].size for i in plan.group_files(q)), plan, q) for q in range(len(groups) - 1)]
        totals = run_recorded(finish_group, finishing, "dedupe: attributes", Ledger("dedupe-finish", options), executor, quiet)
        run_units(join_lineage, [StepUnit(plan.lineage, 0, plan)], executor=executor, label="dedupe: lineage", quiet=True)
    report.stats = Stats(**{name: int(totals.get(name, 0)) for name in Stats.__dataclass_fields__})
    report.lineage = plan.lineage
    return report


def run_recorded(fn, units: list[StepUnit], label: str, ledger: Ledger, executor: Executor, quiet: bool) -> dict[str, float]:
    """Run the units the ledger does not have; their counters, plus those the ledger recorded for the others."""
    finished = ledger.finished(unit.key for unit in units)
    totals = run_units(fn, units, executor=executor, label=label, ledger=ledger, quiet=quiet)
    for key in finished:  # counted by the run that finished them
        for name, value in (ledger.counters(key) or {}).items():
            totals[name] = totals.get(name, 0) + value
    return totals
