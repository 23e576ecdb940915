"""``dolma-sql stat``: dolma's attribute analyzer (``dolma stat``), plus ``--plot DIR``, ``--tables`` and ``--scale``.

Accepts dolma's invocation unchanged (``--attributes GLOB...``, ``--report``, ``--bins``,
``--processes``, ``--seed``, ``--total``, ``--regex``, ``--debug``, ``--work_dir.*``, ``-c``),
and ``--executor local|serial``. See :mod:`dolma_sql.analyzer` for the work folder and resuming.
The report and plots are written first; then one line per summary is printed (dolma's tables
with ``--tables``), and a reader that closes the pipe early does not make the command fail.
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
        import sys

        from dolma_sql.analyzer import analyze, report_url
        from dolma_sql.analyzer.display import print_summary, print_tables, stdout_console, until_the_reader_leaves
        from dolma_sql.analyzer.plots import plot_urls
        from dolma_sql.config.stat import StatConfig
        from dolma_sql.runtime.progress import console as messages

        config = command_config(ctx, StatConfig)
        with executor_of(config) as executor:
            summaries = analyze(config, executor=executor)
        if config.report:
            messages.print(f"report: {report_url(config.report)}", highlight=False, soft_wrap=True)
        for url in plot_urls(summaries, config.plot) if config.plot else ():
            messages.print(f"plot: {url}", highlight=False, soft_wrap=True)
        with until_the_reader_leaves():
            if config.tables:
                print_tables(summaries, stdout_console(), show_total=config.total)
            print_summary(summaries, sys.stdout, show_total=config.total)
