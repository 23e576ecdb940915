"""Resuming ``tag`` with the run ledger, where one unit may write several attribute files.

Without an experiment, a document file's unit writes one file per tagger, and a run with other
options (taggers, seed, models) may rewrite some of them. So every file gets a record (the ledger
knows the unit by its first one), a unit counts as finished only when all of its files have
records of these options and of this version of the document file, and records of other options
are dropped before this run replaces their files.
"""

from __future__ import annotations

from collections.abc import Callable

from dolma_sql.config.tag import TagConfig
from dolma_sql.runtime import Counters, Ledger
from dolma_sql.tagger.plan import tag_settings
from dolma_sql.tagger.unit import TagUnit


def tag_ledger(config: TagConfig, units: list[TagUnit]) -> Ledger:
    """The ledger of these options, made ready for ``units`` (see the module's docstring)."""
    ledger = Ledger("tag", {"taggers": config.tagger_names(), "experiment": config.experiment, "settings": tag_settings(config)})
    files = [output.url for unit in units for output in unit.outputs]
    ledger.track_inputs({output.url: unit.inputs for unit in units for output in unit.outputs})
    ledger.forget_other_options(files)
    recorded = ledger.finished(files)
    ledger.forget(unit.key for unit in units if unit.key in recorded and not all(output.url in recorded for output in unit.outputs))
    return ledger


def recording_every_file(ledger: Ledger) -> Callable[[TagUnit, Counters], None]:
    """Records a finished unit's files beside its first, which the runtime records."""

    def record(unit: TagUnit, counters: Counters) -> None:
        for output in unit.outputs[1:]:
            ledger.record(output.url, counters)

    return record
