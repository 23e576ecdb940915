"""``dolma-sql stat``: dolma's attribute analyzer (``dolma stat``), plus ``--plot DIR``.

Accepts dolma's invocation unchanged (``--attributes GLOB...``, ``--report``, ``--bins``,
``--processes``, ``--seed``, ``--total``, ``--regex``, ``--debug``, ``--work_dir.*``, ``-c``).
Per-file summaries go to ``work_dir.output`` when given (a rerun skips files already summarised
there), else to a temporary folder. ``seed`` and ``debug`` are accepted for compatibility and
have no effect (the computation is deterministic).
"""

from __future__ import annotations

import os

import msgspec
import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.errors import ConfigError
from dolma_sql.storage import expand_globs


class WorkDirConfig(msgspec.Struct, forbid_unknown_fields=True):
    input: str | None = None
    output: str | None = None


class StatConfig(msgspec.Struct, forbid_unknown_fields=True):
    """dolma's ``AnalyzerConfig`` plus ``plot`` (a folder for one PNG histogram per attribute)."""

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


def attribute_files(patterns: list[str]) -> list[str]:
    """The attribute files of dolma's ``attributes`` globs; a folder stands for the files in it (as in dolma)."""
    expanded = [os.path.join(pattern, "*") if os.path.isdir(pattern) else pattern for pattern in patterns]
    return expand_globs(expanded, config_path="attributes", warn=lambda message: typer.echo(f"warning: {message}", err=True))


def register(app: typer.Typer) -> None:
    @app.command("stat", context_settings=DOLMA_FLAGS)
    def stat_command(ctx: typer.Context) -> None:
        """Histograms of the scores and span lengths of every attribute (dolma's `stat`)."""
        import re

        from rich.console import Console

        from dolma_sql.stat import plot, print_tables, summarize, write_report

        config = command_config(ctx, StatConfig)
        if config.bins < 1:
            raise ConfigError(f"bins must be at least 1, got {config.bins}", path="bins")
        if config.processes < 1:
            raise ConfigError(f"processes must be at least 1, got {config.processes}", path="processes")
        if config.regex:
            try:
                re.compile(config.regex)
            except re.error as error:
                raise ConfigError(f"invalid regular expression {config.regex!r}: {error}", path="regex") from None
        files = attribute_files(config.attributes)
        summaries = summarize(files, bins=config.bins, regex=config.regex, processes=config.processes, work_dir=config.work_dir.output)
        console = Console()
        print_tables(summaries, console, show_total=config.total)
        if config.report:
            console.print(f"report: {write_report(summaries, config.report)}", highlight=False)
        if config.plot:
            for path in plot(summaries, config.plot):
                console.print(f"plot: {path}", highlight=False)
