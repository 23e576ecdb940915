"""``dolma-sql warc``: dolma 1.2.1's ``WarcExtractorConfig``, typed and validated before any work starts.

Every dolma warc config (JSON or YAML, or dolma's dotted flags) loads unchanged; ``added``,
``time_limit``, ``rejects`` and ``executor`` are beyond dolma.
"""

from __future__ import annotations

import datetime
import difflib

import msgspec

from dolma_sql.config.shared import Config, ExecutorConfig, WorkDirConfig
from dolma_sql.errors import ConfigError

LINEARIZERS = ("resiliparse", "trafilatura")
"""The HTML-to-text extractors, as upstream names them (resiliparse is upstream's default)."""

ADDED_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
"""dolma's timestamps: ISO 8601 to the millisecond, with a ``Z``."""


class WarcTaggersConfig(Config):
    """dolma's ``pre``/``post``: taggers run on each page before (``pre``, on ``metadata.html``) or after
    (``post``, on the text) extraction; ``skip`` drops a page for which they emit nothing."""

    taggers: list[str] = []
    """Taggers to run (dolma-sql list shows them)."""
    skip: bool = False
    """Drop a page for which the taggers emit nothing."""


class WarcConfig(Config):
    """dolma's ``WarcExtractorConfig`` plus ``added``, ``time_limit``, ``rejects`` and ``executor``."""

    documents: list[str] = []
    """Globs of the WARC files to extract (any URL)."""
    destination: list[str] = []
    """One output folder, or one per documents glob; `.warc.gz` files become `.jsonl.gz` there."""
    processes: int = 1
    """Number of processes to extract with (never more than files)."""
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)
    ignore_existing: bool = False
    """Extract again files the run ledger has as done with these options."""
    debug: bool = False
    """Run in one process."""
    source_name: str | None = None
    """Written to each document's `source` (required)."""
    linearizer: str = "resiliparse"
    """HTML-to-text extractor: resiliparse or trafilatura."""
    pre: WarcTaggersConfig = msgspec.field(default_factory=WarcTaggersConfig)
    post: WarcTaggersConfig = msgspec.field(default_factory=WarcTaggersConfig)
    store_html_in_metadata: bool = False
    """Keep the decoded HTML in metadata.html."""
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    dryrun: bool = False
    """Print the validated config and exit."""
    added: str | None = None
    """The `added` timestamp of every document (unset: the one this destination recorded, else now), e.g. 2024-05-01T12:00:00.000Z."""
    time_limit: float = 5.0
    """CPU seconds one page's extraction may take before it is rejected (or ten times that in wall seconds; 0: no limit, extraction in the worker itself)."""
    rejects: str | None = None
    """Folder to write the rejected records of each WARC file to (reason, WARC offset, URL); unset: only counted."""

    def validate(self) -> WarcConfig:
        """Checks msgspec's types cannot express; raises ConfigError naming the field."""
        if not self.documents:
            raise ConfigError("no documents given", path="documents", hint="pass --documents GLOB...")
        if not self.destination:
            raise ConfigError("no destination given", path="destination", hint="pass --destination FOLDER")
        if len(self.destination) not in (1, len(self.documents)):
            raise ConfigError(
                f"{len(self.destination)} destinations for {len(self.documents)} document globs",
                path="destination",
                hint="give one destination folder, or one per --documents entry",
            )
        if not self.source_name:
            raise ConfigError("no source name given", path="source_name", hint="pass --source_name NAME (written to each document's source)")
        if self.linearizer not in LINEARIZERS:
            close = difflib.get_close_matches(self.linearizer, LINEARIZERS, n=2, cutoff=0.6)
            hint = f"did you mean {' or '.join(close)}?" if close else f"use one of {', '.join(LINEARIZERS)}"
            raise ConfigError(f"unknown linearizer {self.linearizer!r}", path="linearizer", hint=hint)
        if self.processes < 1:
            raise ConfigError(f"must be at least 1, got {self.processes}", path="processes")
        if self.time_limit < 0:
            raise ConfigError(f"must be 0 (no limit) or a number of seconds, got {self.time_limit}", path="time_limit")
        if self.added is not None:
            parse_added(self.added)
        return self


def parse_added(text: str) -> datetime.datetime:
    """``--added`` as a time; a ConfigError shows the format."""
    try:
        return datetime.datetime.strptime(text, ADDED_FORMAT)
    except ValueError:
        raise ConfigError(f"not a dolma timestamp: {text!r}", path="added", hint="write it as 2024-05-01T12:00:00.000Z") from None
