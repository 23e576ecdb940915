"""``dolma-sql warc``: WARC files to dolma documents, the text of each page extracted from its HTML.

Accepts dolma's invocation unchanged (``--documents``, ``--destination``, ``--source_name``,
``--linearizer``, ``--pre.taggers``, ``--post.skip``, ``--store_html_in_metadata``, ``--processes``,
``--ignore_existing``, ``-c`` configs, …), plus ``--added``, ``--time_limit``, ``--rejects`` and
``--executor local|serial|ray``.
"""

from __future__ import annotations

import msgspec
import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.help import config_command
from dolma_sql.runtime.executors import executor_of


def register(app: typer.Typer) -> None:
    @app.command(
        "warc", cls=config_command("dolma_sql.config.warc:WarcConfig"), context_settings=DOLMA_FLAGS, help="Extract documents from WARC files (dolma warc)."
    )
    def warc_command(ctx: typer.Context) -> None:
        from dolma_sql.config.warc import WarcConfig
        from dolma_sql.runtime.progress import console

        config = command_config(ctx, WarcConfig)
        if config.dryrun:
            console.print(msgspec.json.format(msgspec.json.encode(config)).decode())
            return
        from dolma_sql import warc
        from dolma_sql.warc.report import report_lines
        from dolma_sql.warc.unit import convert_file

        with executor_of(config) as executor:
            executor.prepare(convert_file.__module__)
            result = warc.run(config, executor=executor)
        console.print(f"added: {result.added} (pass --added {result.added} to write the same documents again)", highlight=False)
        for line in report_lines(result.counters, result.seconds):
            console.print(line, highlight=False, soft_wrap=True)
