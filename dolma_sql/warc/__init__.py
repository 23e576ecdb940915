"""``warc``: WARC files (Common Crawl's) to dolma documents, the main text of each page extracted from its HTML.

:mod:`.records` reads a WARC file into pages, :mod:`.fields` derives the document fields upstream
derives, :mod:`.extraction` runs the linearizer (:mod:`.linearizers`) with a time limit per page,
:mod:`.documents` runs the taggers and encodes the documents, :mod:`.plan` makes one unit per WARC
file, :mod:`.unit` converts one, and :mod:`.report` sums up a run.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the run's modules are imported when it runs: the extraction process imports this package and needs none of them
    from dolma_sql.config.warc import WarcConfig
    from dolma_sql.runtime import Counters, Executor
    from dolma_sql.warc.plan import WarcUnit

__all__ = ["WarcResult", "run"]

ADDED_RECORD = "warc.added"
"""The run timestamp a destination keeps in its ledger folder, reused by the reruns that do not pass ``--added``."""


@dataclass
class WarcResult:
    """What a run did: the summed counters of its units, its ``added`` time, its wall seconds and its units."""

    counters: Counters
    added: str
    seconds: float
    units: list[WarcUnit]


def run(config: WarcConfig, *, executor: Executor, quiet: bool = False, warn: Callable[[str], None] | None = None) -> WarcResult:
    """Convert every WARC file of ``config`` on ``executor``.

    The linearizer, the taggers, the inputs and the destinations' write access are checked before
    any file is read. Files the ledger has as converted with these options are skipped
    (``units_skipped`` counts them) unless ``config.ignore_existing``. With ``dryrun`` only the plan is made.
    """
    from dolma_sql import storage
    from dolma_sql.runtime import Ledger, run_units
    from dolma_sql.runtime.progress import warn as progress_warn
    from dolma_sql.storage import urls
    from dolma_sql.warc.extraction import close_extractors
    from dolma_sql.warc.linearizers import require_linearizer
    from dolma_sql.warc.plan import WarcSettings, plan_units
    from dolma_sql.warc.unit import convert_file

    started = time.perf_counter()
    warn = warn or progress_warn
    require_linearizer(config.linearizer)
    _check_taggers(config)
    added = resolve_added(config)
    settings = WarcSettings(
        source_name=str(config.source_name),
        linearizer=config.linearizer,
        added=added,
        pre_taggers=tuple(dict.fromkeys(config.pre.taggers)),
        pre_skip=config.pre.skip,
        post_taggers=tuple(dict.fromkeys(config.post.taggers)),
        post_skip=config.post.skip,
        store_html_in_metadata=config.store_html_in_metadata,
        time_limit=config.time_limit,
    )
    units = plan_units(config, settings, warn=warn)
    if config.dryrun:
        return WarcResult({}, added, time.perf_counter() - started, units)
    folders = {urls.parent(unit.output): "destination" for unit in units}
    for unit in units:
        if unit.rejects:
            folders.setdefault(urls.parent(unit.rejects), "rejects")
    for folder, where in folders.items():
        storage.check_writable(folder, where=where)
    for destination in config.destination:
        storage.write_bytes(added_record(destination), added.encode())
    ledger = Ledger("warc", {"settings": settings, "rejects": config.rejects is not None})
    try:
        counters = run_units(convert_file, units, executor=executor, label="warc", ledger=ledger, redo=config.ignore_existing, quiet=quiet, on_result=_warning_when_empty(warn))
    finally:
        close_extractors()  # the units this process ran left one idle
    return WarcResult(counters, added, time.perf_counter() - started, units)


def _check_taggers(config: WarcConfig) -> None:
    """The pre and post taggers are registered ones; an error names the stage's option."""
    from dolma_sql.errors import ConfigError
    from dolma_sql.tagger.registry import check_taggers

    for stage in ("pre", "post"):
        try:
            check_taggers(getattr(config, stage).taggers)
        except ConfigError as error:
            raise ConfigError(error.message, path=f"{stage}.taggers", hint=error.hint) from None


def resolve_added(config: WarcConfig) -> str:
    """``--added``, else the time a destination recorded (a rerun writes the same bytes), else now (UTC)."""
    from dolma_sql.config.warc import parse_added
    from dolma_sql.errors import ConfigError
    from dolma_sql.storage import urls
    from dolma_sql.warc.fields import dolma_timestamp

    if config.added is not None:
        return dolma_timestamp(parse_added(config.added))
    for destination in config.destination:
        record = added_record(destination)
        if urls.exists(record):
            text = urls.read_bytes(record).decode().strip()
            try:
                return dolma_timestamp(parse_added(text))
            except ConfigError:
                raise ConfigError(f"{record} holds no timestamp: {text!r}", path="added", hint="pass --added TIME, or remove that file") from None
    return dolma_timestamp(datetime.datetime.now(datetime.timezone.utc))


def added_record(destination: str) -> str:
    from dolma_sql.runtime.ledger import LEDGER_FOLDER
    from dolma_sql.storage import urls

    return urls.join(destination, LEDGER_FOLDER, ADDED_RECORD)


def _warning_when_empty(warn: Callable[[str], None]) -> Callable[[WarcUnit, Counters], None]:
    def check(unit: WarcUnit, counters: Counters) -> None:
        if not counters.get("documents"):
            skipped = ", ".join(f"{key.removeprefix('skipped_')} {int(value)}" for key, value in counters.items() if key.startswith("skipped_"))
            read = int(counters.get("records_response", 0) + counters.get("records_resource", 0))
            warn(f"{unit.source}: no usable record ({read} response/resource records" + (f"; skipped: {skipped}" if skipped else "") + "); its documents file is empty")

    return check
