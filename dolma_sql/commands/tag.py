"""``dolma-sql tag``: run taggers over document files and write line-aligned attribute files.

Accepts dolma's invocation unchanged (``--documents``, ``--taggers``, ``--experiment``,
``--destination``, ``--processes``, ``--tagger_modules``, ``--ignore_existing``, ``-c`` configs and
dotted names such as ``--work_dir.output``), plus ``--executor local|serial``.
"""

from __future__ import annotations

import msgspec
import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.help import config_command
from dolma_sql.runtime.executors import executor_of
from dolma_sql.config.tag import TagConfig

HYPHENATED = {"--tagger-modules": "--tagger_modules", "--ignore-existing": "--ignore_existing", "--no-ignore-existing": "--no-ignore_existing"}


def register(app: typer.Typer) -> None:
    @app.command(
        "tag", cls=config_command("dolma_sql.config.tag:TagConfig"), context_settings=DOLMA_FLAGS, help="Run taggers over documents and write attribute files (dolma tag)."
    )
    def tag_command(ctx: typer.Context) -> None:
        from dolma_sql.runtime.progress import console

        ctx.args[:] = [HYPHENATED.get(arg, arg) for arg in ctx.args]
        config = command_config(ctx, TagConfig)
        if config.dryrun:
            console.print(msgspec.json.format(msgspec.json.encode(config)).decode())
            return
        from dolma_sql.runtime.run import SKIPPED

        executor = executor_of(config)
        executor.prepare("dolma_sql.tagger.unit")
        with executor:  # its workers start (and import the tagger) while this process imports it too
            from dolma_sql import tagger

            totals = tagger.run(config, executor=executor)
        skipped = int(totals.get(SKIPPED, 0))
        if skipped:
            total = skipped + int(totals.get("files", 0))
            console.print(f"skipping {skipped} of {total} files already tagged (pass --ignore_existing to redo them)")
