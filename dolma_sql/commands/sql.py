"""``dolma-sql sql``: one SQL query over a corpus and its attributes (views ``documents``, ``attributes``, ``spans``)."""

from __future__ import annotations

from typing import Optional

import typer

ALLOW_READ_HELP = (
    "Let SQL read this file, or any file under this folder, besides the corpus (repeatable). With --allow-write, also write there"
    " (replacing a file takes its folder: DuckDB writes beside it first)."
)
MEMORY_LIMIT_HELP = "DuckDB's memory limit (e.g. 2GB; default: 80% of the memory); past it, queries spill to a temporary folder of their own."

ALLOW_WRITE_HELP = "Allow statements that write (COPY, CREATE, ATTACH, ...), to the --database file and --allow-read paths only."
TAGGER_MODULES_HELP = "Import these tagger modules or plugin files (repeatable), so their taggers are SQL functions too."


def import_plugins(modules: list[str] | None) -> None:
    """The ``--tagger_modules`` of ``sql`` and ``shell``: imported before any query, as ``tag`` imports them."""
    if modules:
        from dolma_sql.tagger.plugins import import_tagger_modules

        import_tagger_modules(modules)


def split_names(values: list[str] | None) -> list[str] | None:
    """``--attributes a --attributes b,c`` -> ``[a, b, c]`` (None when the option is absent)."""
    if not values:
        return None
    return [name for value in values for name in value.split(",") if name]


def register(app: typer.Typer) -> None:
    @app.command("sql")
    def sql_command(
        query: str = typer.Argument(..., help="SQL to run (DuckDB dialect); several statements separated by ';' print the last result."),
        documents: Optional[list[str]] = typer.Option(None, "--documents", "-d", help="Glob of document files (repeatable)."),
        attributes: Optional[list[str]] = typer.Option(
            None, "--attributes", "-a", help="Attribute sets to join (repeatable or comma-separated); default: every set beside the documents."
        ),
        database: Optional[str] = typer.Option(None, "--database", help="Save the views into this DuckDB file, or query the views saved there."),
        fmt: str = typer.Option("table", "--format", "-f", help="table, csv, json (lines) or parquet."),
        output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the result here (csv/json compressed by .gz/.zst)."),
        max_rows: int = typer.Option(40, "--max-rows", help="Rows shown by --format table."),
        allow_read: Optional[list[str]] = typer.Option(None, "--allow-read", help=ALLOW_READ_HELP),
        allow_write: bool = typer.Option(False, "--allow-write", help=ALLOW_WRITE_HELP),
        processes: Optional[int] = typer.Option(None, "--processes", help="DuckDB threads (default: all cores)."),
        tagger_modules: Optional[list[str]] = typer.Option(None, "--tagger_modules", help=TAGGER_MODULES_HELP),
        memory_limit: Optional[str] = typer.Option(None, "--memory-limit", help=MEMORY_LIMIT_HELP),
    ) -> None:
        """Query documents and attributes with SQL, without copying them."""
        from dolma_sql.runtime.progress import new_console

        import_plugins(tagger_modules)

        from dolma_sql.query import execute, export, export_scratch, open_sandboxed, print_table

        with export_scratch(fmt, output) as scratch:
            connection, corpus = open_sandboxed(
                documents, split_names(attributes), database=database, threads=processes, allow_write=allow_write, allow_read=allow_read or (), scratch=scratch,
                memory_limit=memory_limit,
            )
            relation = execute(connection, query, corpus=corpus, allow_write=allow_write)
            if relation is None:
                return
            if scratch is None:
                print_table(connection, relation, new_console(), corpus, max_rows)
            else:
                export(connection, relation, fmt, output, corpus, scratch)
