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

from dolma_sql import layout, storage
from dolma_sql.config.mix import MixerConfig
from dolma_sql.mixer.impact import build_report, count_shard
from dolma_sql.mixer.plan import ShardTask, compile_recipe, plan_shards
from dolma_sql.mixer.write import write_shard
from dolma_sql.runtime import Counters, Executor, Ledger, run_units
from dolma_sql.storage import urls

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
    with ledger.holding(task.key for task in tasks):
        if config.shuffle:  # shards named <stream>-NNNN (unshuffled outputs are named after their inputs)
            _remove_earlier_shards(tasks, ledger, warn)
        totals = run_units(write_shard, tasks, executor=executor, label="mix", ledger=ledger, quiet=quiet)
    return MixResult(totals=totals, shards=len(tasks))


def _remove_earlier_shards(tasks: list[ShardTask], ledger: Ledger, warn: Callable[[str], None]) -> None:
    """Remove the shards that an earlier run of a stream wrote into its output folder and this run's plan does not (the
    recipe now makes fewer shards), with their records: else the folder would hold both runs' documents."""
    planned = {task.key for task in tasks}
    streams = {(urls.parent(task.key), task.plan.stream.name) for task in tasks}
    for folder, stream in sorted(streams):
        earlier = {name: records for name, records in ledger.recorded_outputs(folder).items() if layout.is_shard_of(name, stream)}
        stale = sorted(name for name in earlier if urls.join(folder, name) not in planned)
        for name in stale:
            urls.remove(urls.join(folder, name))
            for record in earlier[name]:
                urls.remove(record)
        if stale:
            warn(f"removed {len(stale)} shard{'s' if len(stale) > 1 else ''} of stream {stream!r} that an earlier run wrote and this recipe does not: {', '.join(urls.join(folder, name) for name in stale)}")


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
