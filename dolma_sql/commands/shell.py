"""``dolma-sql shell``: an interactive SQL session over a corpus and its attributes."""

from __future__ import annotations

from typing import Optional

import typer

from dolma_sql.commands.sql import ALLOW_READ_HELP, ALLOW_WRITE_HELP, MEMORY_LIMIT_HELP, TAGGER_MODULES_HELP, import_plugins, split_names


def register(app: typer.Typer) -> None:
    @app.command("shell")
    def shell_command(
        documents: Optional[list[str]] = typer.Option(None, "--documents", "-d", help="Glob of document files (repeatable)."),
        attributes: Optional[list[str]] = typer.Option(
            None, "--attributes", "-a", help="Attribute sets to join (repeatable or comma-separated); default: every set beside the documents."
        ),
        database: Optional[str] = typer.Option(
            None, "--database", help="Save the views into this DuckDB file (any DuckDB client of the same version can open it), or reopen it."
        ),
        max_rows: int = typer.Option(40, "--max-rows", help="Rows shown per result."),
        allow_read: Optional[list[str]] = typer.Option(None, "--allow-read", help=ALLOW_READ_HELP),
        allow_write: bool = typer.Option(False, "--allow-write", help=ALLOW_WRITE_HELP),
        processes: Optional[int] = typer.Option(None, "--processes", help="DuckDB threads (default: all cores)."),
        tagger_modules: Optional[list[str]] = typer.Option(None, "--tagger_modules", help=TAGGER_MODULES_HELP),
        memory_limit: Optional[str] = typer.Option(None, "--memory-limit", help=MEMORY_LIMIT_HELP),
    ) -> None:
        """Explore documents and attributes interactively with SQL."""
        from dolma_sql.query import open_sandboxed
        from dolma_sql.shell import Shell

        import_plugins(tagger_modules)

        connection, corpus = open_sandboxed(
            documents, split_names(attributes), database=database, threads=processes, allow_write=allow_write, allow_read=allow_read or (),
            memory_limit=memory_limit,
        )
        Shell(connection, corpus, allow_write=allow_write, max_rows=max_rows).run()
