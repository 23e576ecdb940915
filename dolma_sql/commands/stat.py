"""``dolma-sql stat``: dolma's attribute analyzer (``dolma stat``), plus ``--plot DIR``.

Accepts dolma's invocation unchanged (``--attributes GLOB...``, ``--report``, ``--bins``,
``--processes``, ``--seed``, ``--total``, ``--regex``, ``--debug``, ``--work_dir.*``, ``-c``),
and ``--executor local|serial``. See :mod:`dolma_sql.analyzer` for the work folder and resuming.
"""

from __future__ import annotations

import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.help import config_command
from dolma_sql.runtime.executors import executor_of


def register(app: typer.Typer) -> None:
    @app.command("stat", cls=config_command("dolma_sql.config.stat:StatConfig"), context_settings=DOLMA_FLAGS)
    def stat_command(ctx: typer.Context) -> None:
        """Histograms of the scores and span lengths of every attribute (dolma's `stat`)."""
        from rich.console import Console

        from dolma_sql.config.stat import StatConfig
        from dolma_sql.analyzer import report_url, run
        from dolma_sql.analyzer.display import plot_urls, print_tables

        config = command_config(ctx, StatConfig)
        with executor_of(config) as executor:
            summaries = run(config, executor=executor)
        console = Console()
        print_tables(summaries, console, show_total=config.total)
        if config.report:
            console.print(f"report: {report_url(config.report)}", highlight=False)
        if config.plot:
            for url in plot_urls(summaries, config.plot):
                console.print(f"plot: {url}", highlight=False)
