"""``dolma-sql mix``: filter documents, replace spans, merge attributes, reshard (and ``--dry-run``: count what each rule removes).

The recipe compiles, per stream, to one DuckDB query (:mod:`.plan`, with :mod:`dolma_sql.compile`)
that runs over Arrow batches of raw document and attribute lines (:mod:`.shard`) and returns which
rows to keep and the spans each replacement rule selected (:mod:`.edits`). Kept documents are then
rewritten and written (:mod:`.write`, with the codec of :mod:`.documents`); a dry run counts instead
(:mod:`.impact`). Each output shard is one unit of the runtime: committed whole, and recorded in the
ledger once committed, so a rerun of the same recipe skips the finished shards and an interrupted run
resumes without losing or duplicating a document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dolma_sql import storage
from dolma_sql.config.mix import MixerConfig
from dolma_sql.mixer.impact import build_report, count_shard
from dolma_sql.mixer.plan import compile_recipe, plan_shards
from dolma_sql.mixer.write import write_shard
from dolma_sql.runtime import Counters, Executor, Ledger, run_units

__all__ = ["MixResult", "dry_run", "run"]


def _ignore(message: str) -> None:
    """Warnings go nowhere unless the caller says where."""


@dataclass
class MixResult:
    totals: Counters = field(default_factory=dict)
    shards: int = 0


def run(
    config: MixerConfig,
    *,
    executor: Executor,
    allow_missing_attributes: bool = False,
    warn: Callable[[str], None] = _ignore,
    quiet: bool = False,
) -> MixResult:
    """Mix a validated recipe, one output shard per unit on ``executor``; shards that a run of the same
    recipe finished are skipped (``totals["units_skipped"]``)."""
    tasks = plan_shards(compile_recipe(config), config, allow_missing_attributes=allow_missing_attributes, warn=warn)
    for index, stream in enumerate(config.streams):
        storage.check_writable(stream.output.path, where=f"streams[{index}].output.path")
    ledger = Ledger(
        "mix",
        {"shuffle": config.shuffle, "allow_missing_attributes": allow_missing_attributes},
        parts={task.key: task.plan.stream for task in tasks},  # editing one stream redoes that stream's shards only
    )
    totals = run_units(write_shard, tasks, executor=executor, label="mix", ledger=ledger, quiet=quiet)
    return MixResult(totals=totals, shards=len(tasks))


def dry_run(
    config: MixerConfig,
    *,
    executor: Executor,
    allow_missing_attributes: bool = False,
    warn: Callable[[str], None] = _ignore,
    quiet: bool = False,
) -> dict:
    """Count what each rule of a validated recipe removes, writing nothing; returns the report
    (see :func:`.impact.build_report`)."""
    plans = compile_recipe(config, measured=True)
    tasks = plan_shards(plans, config, allow_missing_attributes=allow_missing_attributes, warn=warn)
    totals = run_units(count_shard, tasks, executor=executor, label="dry run", quiet=quiet)
    return build_report(config, totals)
