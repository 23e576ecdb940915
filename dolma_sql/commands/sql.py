"""``dolma-sql sql``: one SQL query over a corpus and its attributes (views ``documents``, ``attributes``, ``spans``)."""

from __future__ import annotations

from typing import Optional

import typer


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
        allow_write: bool = typer.Option(False, "--allow-write", help="Allow statements that write (COPY, CREATE, ATTACH, INSTALL, SET, ...)."),
        processes: Optional[int] = typer.Option(None, "--processes", help="DuckDB threads (default: all cores)."),
    ) -> None:
        """Query documents and attributes with SQL, without copying them."""
        from rich.console import Console

        from dolma_sql.query import execute, export, print_table
        from dolma_sql.views import open_views

        connection, corpus = open_views(documents, split_names(attributes), database=database, threads=processes)
        relation = execute(connection, query, corpus=corpus, allow_write=allow_write)
        if relation is None:
            return
        if fmt == "table" and output is None:
            print_table(relation, Console(), corpus, max_rows)
        else:
            export(connection, relation, "csv" if fmt == "table" else fmt, output, corpus)
