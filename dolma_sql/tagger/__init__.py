"""``tag``: run taggers over document files and write line-aligned attribute files, as dolma does.

:mod:`.registry` holds the registered taggers (:mod:`.plugins` imports their modules),
:mod:`.batch` the documents they see, :mod:`.plan` turns a config into one unit per document
file, :mod:`.unit` runs a unit, :mod:`.resume` keeps the ledger of finished files, and
:mod:`.sql_functions` makes taggers DuckDB functions.
Tagger modules import their API from :mod:`dolma_sql.tagging`.
"""

from __future__ import annotations

from dolma_sql import storage
from dolma_sql.config.tag import TagConfig
from dolma_sql.runtime import Counters, Executor, run_units
from dolma_sql.runtime.profiling import profiled
from dolma_sql.runtime.progress import warn
from dolma_sql.tagger.plan import output_folders, plan_units
from dolma_sql.tagger.plugins import import_tagger_modules
from dolma_sql.tagger.registry import check_taggers
from dolma_sql.tagger.resume import recording_every_file, tag_ledger
from dolma_sql.tagger.unit import tag_file

__all__ = ["run"]


def run(config: TagConfig, *, executor: Executor, quiet: bool = False) -> Counters:
    """Tag every document file of ``config`` on ``executor`` and return the summed counters.

    Taggers, their dependencies and models, the documents and the destinations' write access are
    all checked before any file is tagged. Document files whose attribute files the ledger has
    with these options are skipped (``units_skipped`` counts them) unless ``config.ignore_existing``.
    ``profile.enable`` profiles the units that run in this process (all of them on the executor
    :func:`~dolma_sql.runtime.executors.executor_of` builds for such a config).
    """
    import_tagger_modules(config.tagger_modules)
    check_taggers(config.tagger_names(), config.model_options())
    units = plan_units(config, warn=warn)
    for folder in output_folders(units):
        storage.check_writable(folder, where="destination" if config.destination is not None else "documents")
    ledger = tag_ledger(config, units)
    profile = config.profile
    if profile.enable and profile.output:
        storage.check_writable_file(profile.output, where="profile.output")
    with profiled(profile.enable, output=profile.output, sort_key=profile.sort_key, lines=profile.lines):
        return run_units(
            tag_file, units, executor=executor, label="tag", ledger=ledger, redo=config.ignore_existing, quiet=quiet, on_result=recording_every_file(ledger)
        )
