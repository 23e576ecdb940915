"""The config of ``dolma-sql stat``: dolma's ``AnalyzerConfig`` plus ``plot``."""

from __future__ import annotations

import re

import msgspec

from dolma_sql.config.shared import Config, ExecutorConfig, WorkDirConfig
from dolma_sql.errors import ConfigError

SCALES = ("auto", "linear", "log")


class StatConfig(Config):
    """dolma's ``AnalyzerConfig`` plus ``plot`` (a folder for one PNG histogram per attribute), ``tables``
    (print dolma's tables, not only one line per summary) and ``scale`` of the plots (``auto``: log where
    the values are long-tailed; ``linear``; ``log``).

    ``seed`` and ``debug`` are accepted for compatibility; the computation is deterministic.
    ``work_dir.output`` keeps the per-file summaries, so that a rerun skips the files it has.
    """

    attributes: list[str] = []
    """Globs or folders of the attribute files to summarise (any URL)."""
    report: str | None = None
    """Folder the summaries (summaries.jsonl.gz) are written to."""
    bins: int = 1000
    """Number of histogram bins."""
    processes: int = 1
    """Number of processes (never more than files)."""
    seed: int = 0
    """Accepted for dolma (the summaries are deterministic)."""
    total: bool = False
    """Also show each attribute's total count and sum."""
    debug: bool = False
    """Run in one process."""
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    regex: str | None = None
    """Summarise only the attributes whose names match this regular expression."""
    plot: str | None = None
    """Folder one PNG histogram per attribute is written to."""
    tables: bool = False
    """Print dolma's full tables, not one line per attribute."""
    scale: str = "auto"
    """Scale of the bins and plots: auto (log where the values are long-tailed), linear or log."""
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)

    def validate(self) -> StatConfig:
        if not self.attributes:
            raise ConfigError("no attribute files given", path="attributes", hint="list globs or folders of attribute files")
        if self.bins < 1:
            raise ConfigError(f"bins must be at least 1, got {self.bins}", path="bins")
        if self.processes < 1:
            raise ConfigError(f"processes must be at least 1, got {self.processes}", path="processes")
        if self.scale not in SCALES:
            raise ConfigError(f"scale must be one of {', '.join(SCALES)}, got {self.scale!r}", path="scale")
        if self.regex:
            try:
                re.compile(self.regex)
            except re.error as error:
                raise ConfigError(f"invalid regular expression {self.regex!r}: {error}", path="regex") from None
        return self
