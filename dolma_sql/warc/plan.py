"""Planning ``warc``: one unit per WARC file, its documents file named by upstream's rule."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from dolma_sql.config.warc import WarcConfig
from dolma_sql.errors import ConfigError
from dolma_sql.storage import urls


@dataclass(frozen=True)
class WarcSettings:
    """What every unit of a run shares; all of it shapes the documents."""

    source_name: str
    linearizer: str
    added: str
    pre_taggers: tuple[str, ...] = ()
    pre_skip: bool = False
    post_taggers: tuple[str, ...] = ()
    post_skip: bool = False
    store_html_in_metadata: bool = False
    time_limit: float = 5.0


@dataclass(frozen=True)
class WarcUnit:
    """Convert the WARC file ``source`` (``size`` bytes) into the documents file ``output``; its rejected
    records go to ``rejects`` when set. ``staging``/``input_staging`` are dolma's ``work_dir``."""

    source: str
    size: int
    output: str
    settings: WarcSettings
    rejects: str | None = None
    staging: str | None = None
    input_staging: str | None = None

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.source,)

    @property
    def key(self) -> str:
        return self.output


def plan_units(config: WarcConfig, settings: WarcSettings, *, warn: Callable[[str], None]) -> list[WarcUnit]:
    """One unit per WARC file (a file matched by two globs is converted once); two files may not share an output."""
    units: dict[str, WarcUnit] = {}
    outputs: dict[str, str] = {}
    for source, relative_output, destination in _placed_files(config, warn=warn):
        output = urls.join(destination, relative_output)
        if outputs.setdefault(output, source) != source:
            raise ConfigError(
                f"{outputs[output]} and {source} would both be written to {output}",
                path="destination",
                hint="give each documents glob its own destination",
            )
        rejects = urls.join(config.rejects, relative_output[: -len(".jsonl.gz")] + ".rejects.jsonl.gz") if config.rejects else None
        units.setdefault(source, WarcUnit(source, urls.size(source), output, settings, rejects, config.work_dir.output, config.work_dir.input))
    return list(units.values())


def _placed_files(config: WarcConfig, *, warn: Callable[[str], None]) -> list[tuple[str, str, str]]:
    """``(WARC file, its documents file relative to the destination, destination)``.

    As upstream, a destination holds the files of its globs at their paths relative to the deepest
    folder holding them all (a single file: its folder).
    """
    if len(config.destination) == 1:
        groups = [(urls.expand_globs(config.documents, config_path="documents", warn=warn), config.destination[0])]
    else:
        groups = [(urls.expand_globs([pattern], config_path=f"documents[{index}]"), destination)
                  for index, (pattern, destination) in enumerate(zip(config.documents, config.destination))]
    placed = []
    for sources, destination in groups:
        base = urls.common_parent(sources)
        placed += [(source, documents_name(urls.relative(source, base)), destination) for source in sources]
    return placed


def documents_name(relative: str) -> str:
    """Upstream's output name: every extension of the file name with ``.gz`` and ``.warc`` taken out, then ``.jsonl.gz``
    (``a/x.warc.gz`` -> ``a/x.jsonl.gz``)."""
    folder, name = os.path.split(relative)
    stem, _, extensions = name.partition(".")
    extensions = ("." + extensions if extensions else "").replace(".gz", "").replace(".warc", "")
    return os.path.join(folder, stem + extensions + ".jsonl.gz")
