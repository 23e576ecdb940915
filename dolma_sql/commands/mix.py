"""``dolma-sql mix``: dolma's mixer, with ``--explain`` and ``--dry-run`` impact reports."""

from __future__ import annotations

from typing import Optional

import msgspec
import typer
from rich.console import Console

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.recipe import MixerConfig, validate

console = Console(stderr=True)


def register(app: typer.Typer) -> None:
    @app.command("mix", context_settings=DOLMA_FLAGS)
    def mix_command(
        ctx: typer.Context,
        explain: bool = typer.Option(False, "--explain", help="Print the SQL each stream runs and exit (touches no file)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Report what each rule removes, without writing a corpus."),
        report: Optional[str] = typer.Option(None, "--report", help="With --dry-run: also write the report as JSON here."),
        allow_missing_attributes: bool = typer.Option(
            False, "--allow-missing-attributes", help="Mix documents whose attribute file is missing as if the set were absent."
        ),
    ) -> None:
        """Filter, clean and reshard documents with a dolma mixer recipe: dolma-sql mix RECIPE (or -c RECIPE mix)."""
        config = validate(command_config(ctx, MixerConfig, positional_config=True))
        if config.dryrun:
            typer.echo(msgspec.json.format(msgspec.json.encode(config)).decode())
            return
        if explain:
            from rich.syntax import Syntax

            from dolma_sql.mixer import compile_recipe

            out = Console()
            for plan in compile_recipe(config):
                header = f"-- stream {plan.index}: {plan.stream.name}"
                if out.is_terminal:
                    out.print(header, highlight=False)
                    out.print(Syntax(plan.sql, "sql"))
                else:  # piped: plain text, never wrapped
                    typer.echo(f"{header}\n{plan.sql};")
            return
        # workers started now import the mixer (DuckDB, Arrow, Polars: a third of a CPU second) while
        # this process does too and compiles the recipe; the caller mixes shards as well, as mix() does
        with LocalExecutor(config.processes, caller_works=True, preload="dolma_sql.mixer") as executor:
            if dry_run:
                from dolma_sql.impact import impact_report, print_report, write_report

                result = impact_report(config, allow_missing_attributes=allow_missing_attributes, warn=_warn, executor=executor)
                print_report(result)
                if report:
                    write_report(result, report)
                return
            from dolma_sql import mixer

            result = mixer.mix(config, allow_missing_attributes=allow_missing_attributes, warn=_warn, executor=executor)
        totals = result.totals
        console.print(
            f"mixed {totals.get('documents', 0):,.0f} documents into {result.shards} shard(s): "
            f"kept {totals.get('documents_kept', 0):,.0f}"
            + (f", {totals.get('shards_skipped', 0):,.0f} shard(s) already done" if totals.get("shards_skipped") else "")
        )
        for stream in config.streams:
            console.print(f"  {stream.name}: {stream.output.path}")


def _warn(message: str) -> None:
    console.print(f"[yellow]warning:[/] {message}", highlight=False)
