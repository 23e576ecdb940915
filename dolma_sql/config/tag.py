"""``dolma-sql tag`` and ``dolma-sql list``: dolma 1.2.1's tagger config, typed and validated before any work starts."""

from __future__ import annotations

import os
import pstats

import msgspec

from dolma_sql.config.shared import Config, ExecutorConfig, WorkDirConfig
from dolma_sql.errors import ConfigError

SORT_KEYS = tuple(sorted(pstats.Stats.sort_arg_dict_default))
"""The ``profile.sort_key`` values pstats takes (dolma offers the same)."""


class ProfileConfig(Config):
    """dolma's ``profile``: with ``enable`` the run is profiled with cProfile in one process, and the
    ``lines`` costliest functions by ``sort_key`` are written to ``output`` (standard output when
    unset); ``steps`` tags at most that many documents per file."""

    enable: bool = False
    output: str | None = None
    steps: int | None = None
    sort_key: str = "tottime"
    lines: int = 100


class ModelsConfig(Config):
    """Local model and list files (upstream downloads them; dolma-sql never downloads at run time)."""

    ft_lang_id: str | None = None
    fasttext: str | None = None
    jigsaw_hatespeech: str | None = None
    jigsaw_nsfw: str | None = None
    dclm_oh_eli5: str | None = None
    dolma17_quality: str | None = None
    url_blocklist: list[str] = []


class TagConfig(Config):
    """dolma's ``TaggerConfig`` plus ``seed`` (for ``random_number_v1``) and ``models`` (local model/list paths)."""

    documents: list[str] = []
    destination: list[str] | None = None
    tagger_modules: list[str] = []
    taggers: list[str] = []
    experiment: str | None = None
    processes: int = 1
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)
    ignore_existing: bool = False
    debug: bool = False
    profile: ProfileConfig = msgspec.field(default_factory=ProfileConfig)
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    dryrun: bool = False
    seed: int = 0
    models: ModelsConfig = msgspec.field(default_factory=ModelsConfig)

    def validate(self) -> TagConfig:
        """Checks msgspec's types cannot express; raises ConfigError naming the field."""
        if not self.taggers:
            raise ConfigError("no taggers given", path="taggers", hint="pass --taggers NAME... (see `dolma-sql list`)")
        if not self.documents:
            raise ConfigError("no documents given", path="documents", hint="pass --documents GLOB...")
        if self.destination is not None and len(self.destination) != len(self.documents):
            raise ConfigError(
                f"{len(self.destination)} destinations for {len(self.documents)} document globs",
                path="destination",
                hint="give one destination directory per --documents entry",
            )
        if self.processes < 1:
            raise ConfigError(f"must be at least 1, got {self.processes}", path="processes")
        if self.profile.steps is not None and self.profile.steps < 0:
            raise ConfigError(f"must be at least 0, got {self.profile.steps}", path="profile.steps")
        if self.profile.sort_key not in SORT_KEYS:
            raise ConfigError(f"unknown sort key {self.profile.sort_key!r}", path="profile.sort_key", hint=f"use one of {', '.join(SORT_KEYS)}")
        if self.profile.lines < 1:
            raise ConfigError(f"must be at least 1, got {self.profile.lines}", path="profile.lines")
        return self

    def tagger_names(self) -> list[str]:
        """The requested taggers, each once, in the order given."""
        return list(dict.fromkeys(self.taggers))

    def model_options(self) -> dict[str, str]:
        """The configured model and list paths as tagger options (a list joined with the path separator)."""
        options = {}
        for name, value in msgspec.structs.asdict(self.models).items():
            if value:
                options[name] = os.pathsep.join(value) if isinstance(value, list) else value
        return options


class ListConfig(Config):
    """``dolma-sql list``: plugin modules whose taggers are listed beside the built-in ones."""

    tagger_modules: list[str] = []
