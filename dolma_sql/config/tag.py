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
    """Profile the run with cProfile (in one process)."""
    output: str | None = None
    """File the profile is written to (unset: standard output)."""
    steps: int | None = None
    """Tag at most this many documents of each file."""
    sort_key: str = "tottime"
    """pstats key the profile is sorted by (tottime, cumulative, calls, ...)."""
    lines: int = 100
    """Number of functions the profile lists."""


class ModelsConfig(Config):
    """Local model and list files (upstream downloads them; dolma-sql never downloads at run time)."""

    ft_lang_id: str | None = None
    """fastText language-ID model file for the ft_lang_id_* taggers (unset: the bundled lid.176.ftz)."""
    fasttext: str | None = None
    """fastText model file for taggers that take a model of your own."""
    jigsaw_hatespeech: str | None = None
    """fastText model file of the jigsaw_hatespeech_* taggers."""
    jigsaw_nsfw: str | None = None
    """fastText model file of the jigsaw_nsfw_* taggers."""
    dclm_oh_eli5: str | None = None
    """fastText model file of the dclm-oh-eli5 tagger."""
    dolma17_quality: str | None = None
    """fastText model file of the dolma17-quality tagger."""
    url_blocklist: list[str] = []
    """Local blocklist files of the URL taggers (upstream downloads them)."""
    url_allowlist: list[str] = []
    """Local Wikidata list files of the allowlist_wikidata* taggers (upstream downloads them)."""
    tokenizer: str | None = None
    """tokenizer.json of the dolma_v*_tokenizer and tokenizers_* taggers (upstream downloads it from the Hugging Face hub)."""


class TagConfig(Config):
    """dolma's ``TaggerConfig`` plus ``seed`` (for ``random_number_v1``) and ``models`` (local model/list paths)."""

    documents: list[str] = []
    """Globs of the document files to tag (any URL)."""
    destination: list[str] | None = None
    """One output folder per documents glob (unset: attributes/<experiment> beside documents/)."""
    tagger_modules: list[str] = []
    """Modules or .py files that register taggers of your own."""
    taggers: list[str] = []
    """Names of the taggers to run (dolma-sql list shows them)."""
    experiment: str | None = None
    """Name of the attribute set written (unset: each tagger's own name)."""
    processes: int = 1
    """Number of processes to tag with (never more than files)."""
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)
    ignore_existing: bool = False
    """Tag again files the run ledger has as done with these options."""
    debug: bool = False
    """Run in one process."""
    profile: ProfileConfig = msgspec.field(default_factory=ProfileConfig)
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    dryrun: bool = False
    """Print the validated config and exit."""
    seed: int = 0
    """Seed of random_number_v1 (a hash of the seed and the document id)."""
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
    """Modules or .py files whose taggers are listed beside the built-in ones."""
