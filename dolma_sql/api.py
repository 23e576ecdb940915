"""The Python API: every command as a function of its config, the same runs as the command line.

Each function takes the command's config as a dict (the keys of dolma's JSON/YAML configs) or as its
typed struct, validates it as a config file is validated, and runs on ``executor`` when one is given
(the caller enters and leaves it), else on the executor the config names (``executor``,
``processes``). Heavy libraries are imported when a function runs, not when ``dolma_sql`` is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dolma_sql.config import config_from

if TYPE_CHECKING:
    import duckdb

    from dolma_sql.runtime.executor import Executor


def _executor_for(config: Any, executor: Executor | None) -> Executor:
    """The caller's executor, or the one the config asks for. The latter is not entered: it starts its
    workers for each map of units and stops them after, so none sit idle through a command's serial steps."""
    from dolma_sql.runtime.executors import executor_of

    return executor if executor is not None else executor_of(config)


def mix(config: dict | Any, *, executor: Executor | None = None, dry_run: bool = False, allow_missing_attributes: bool = False):
    """Run a mixer recipe (dolma's ``MixerConfig``); ``dry_run`` returns the impact report instead of writing."""
    from dolma_sql import mixer
    from dolma_sql.config.mix import MixerConfig

    recipe = config_from(config, MixerConfig)
    run = mixer.dry_run if dry_run else mixer.run
    return run(recipe, executor=_executor_for(recipe, executor), allow_missing_attributes=allow_missing_attributes, quiet=True)


def tag(config: dict | Any, *, executor: Executor | None = None):
    """Run taggers over documents and write attribute files (dolma's ``TaggerConfig``); returns the counters."""
    from dolma_sql import tagger
    from dolma_sql.config.tag import TagConfig

    settings = config_from(config, TagConfig)
    return tagger.run(settings, executor=_executor_for(settings, executor), quiet=True)


def dedupe(config: dict | Any, *, executor: Executor | None = None):
    """Mark duplicate documents or paragraphs (dolma's ``DeduperConfig``, plus ``dedupe.mode: exact`` and ``dedupe.minhash``); returns the report."""
    from dolma_sql import deduper
    from dolma_sql.config.dedupe import DeduperConfig

    settings = config_from(config, DeduperConfig)
    return deduper.run(settings, executor=_executor_for(settings, executor), quiet=True)


def tokens(config: dict | Any, *, executor: Executor | None = None):
    """Tokenize documents into dolma/OLMo memmaps (dolma's ``TokenizerConfig``); returns what the run did."""
    from dolma_sql import tokenizer
    from dolma_sql.config.tokens import TokensConfig

    settings = config_from(config, TokensConfig)
    return tokenizer.run(settings, executor=_executor_for(settings, executor))


def stat(config: dict | Any, *, executor: Executor | None = None):
    """Histograms of every attribute's scores and span lengths (dolma's ``AnalyzerConfig``); returns the summaries."""
    from dolma_sql import analyzer
    from dolma_sql.config.stat import StatConfig

    settings = config_from(config, StatConfig)
    return analyzer.run(settings, executor=_executor_for(settings, executor))


def corpus(documents: str | Sequence[str], attributes: str | Sequence[str] | None = None, *, allow_read: str | Sequence[str] = ()) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the views ``documents``, ``attributes`` and ``spans`` over a corpus, sandboxed
    as ``dolma-sql sql`` is (files outside the corpus and ``allow_read`` cannot be read or written). It is the
    connection itself: no statement is refused, so SQL run through it may write to the corpus files; give
    untrusted SQL to ``dolma-sql sql``, which refuses statements that write."""
    from dolma_sql.query import open_sandboxed

    documents, attributes, allow_read = (_listed(value) for value in (documents, attributes, allow_read))
    connection, _ = open_sandboxed(documents, attributes, database=None, threads=None, allow_write=False, allow_read=allow_read)
    return connection


def _listed(value: str | Sequence[str] | None) -> list[str] | None:
    """One name as a list of one (a string is a sequence of characters, which no caller means)."""
    return None if value is None else [value] if isinstance(value, str) else list(value)
