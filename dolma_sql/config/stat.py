"""The config of ``dolma-sql stat``: dolma's ``AnalyzerConfig`` plus ``plot``."""

from __future__ import annotations

import re

import msgspec

from dolma_sql.config.shared import Config, ExecutorConfig, WorkDirConfig
from dolma_sql.errors import ConfigError


class StatConfig(Config):
    """dolma's ``AnalyzerConfig`` plus ``plot`` (a folder for one PNG histogram per attribute).

    ``seed`` and ``debug`` are accepted for compatibility; the computation is deterministic.
    ``work_dir.output`` keeps the per-file summaries, so that a rerun skips the files it has.
    """

    attributes: list[str] = []
    report: str | None = None
    bins: int = 1000
    processes: int = 1
    seed: int = 0
    total: bool = False
    debug: bool = False
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    regex: str | None = None
    plot: str | None = None
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)

    def validate(self) -> StatConfig:
        if not self.attributes:
            raise ConfigError("no attribute files given", path="attributes", hint="list globs or folders of attribute files")
        if self.bins < 1:
            raise ConfigError(f"bins must be at least 1, got {self.bins}", path="bins")
        if self.processes < 1:
            raise ConfigError(f"processes must be at least 1, got {self.processes}", path="processes")
        if self.regex:
            try:
                re.compile(self.regex)
            except re.error as error:
                raise ConfigError(f"invalid regular expression {self.regex!r}: {error}", path="regex") from None
        return self
