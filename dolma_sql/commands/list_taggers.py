"""``dolma-sql list``: every tagger with the span types it emits and what it needs.

(Not named ``list.py``: a submodule called ``list`` would shadow the builtin inside the package namespace.)
"""

from __future__ import annotations

import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.config.tag import ListConfig
from dolma_sql.help import config_command


def register(app: typer.Typer) -> None:
    @app.command("list", cls=config_command("dolma_sql.config.tag:ListConfig"), context_settings=DOLMA_FLAGS, help="List the available taggers (dolma list).")
    def list_taggers(ctx: typer.Context) -> None:
        from rich.table import Table

        from dolma_sql.runtime.progress import new_console
        from dolma_sql.tagger.plugins import import_tagger_modules
        from dolma_sql.tagger.registry import registry

        ctx.args[:] = ["--tagger_modules" if arg == "--tagger-modules" else arg for arg in ctx.args]
        config = command_config(ctx, ListConfig)
        import_tagger_modules(config.tagger_modules)
        table = Table(title="dolma-sql taggers")
        table.add_column("name", style="cyan", no_wrap=True)
        table.add_column("types")
        table.add_column("needs")
        table.add_column("optional dependency")
        table.add_column("kernel")
        for name, spec in registry().items():
            table.add_row(
                name,
                ", ".join(spec.types),
                ", ".join(spec.needs) or "text",
                spec.requires or "",
                "vectorized" if spec.vectorized else "per document",
            )
        new_console(width=max(160, new_console().width)).print(table)
