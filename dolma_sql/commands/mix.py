"""``dolma-sql mix``: dolma's mixer, with ``--explain`` and ``--dry-run`` impact reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import msgspec
import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.help import config_command
from dolma_sql.runtime.executors import executor_of
from dolma_sql.config.mix import MixerConfig
from dolma_sql.errors import ConfigError
from dolma_sql.runtime.progress import console, new_console, warn

if TYPE_CHECKING:
    from dolma_sql.mixer import MixResult


def register(app: typer.Typer) -> None:
    @app.command("mix", cls=config_command("dolma_sql.config.mix:MixerConfig"), context_settings=DOLMA_FLAGS, options_metavar="[RECIPE] [OPTIONS]")
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
        if not (ctx.find_root().obj or {}).get("config") and not (ctx.args and not ctx.args[0].startswith("-")):
            raise ConfigError("no recipe given", hint="dolma-sql mix RECIPE (or dolma-sql -c RECIPE mix); dolma-sql mix -h lists a recipe's keys")
        config = command_config(ctx, MixerConfig, positional_config=True)
        if config.dryrun:
            typer.echo(msgspec.json.format(msgspec.json.encode(config)).decode())
            return
        if explain:
            _explain(config)
            return
        if report and not dry_run:
            raise ConfigError("--report writes the impact report of --dry-run", path="--report", hint="add --dry-run (a mix prints its totals)")
        if dry_run and report:
            from dolma_sql.storage import check_writable_file

            check_writable_file(report, where="--report")  # before the work, not after it
        executor = executor_of(config)
        # workers started on entry import the mixer (DuckDB, Arrow, Polars) while this process imports it and compiles the recipe
        executor.prepare("dolma_sql.mixer.impact" if dry_run else "dolma_sql.mixer.write")
        options = {"executor": executor, "allow_missing_attributes": allow_missing_attributes, "warn": warn}
        with executor:
            from dolma_sql import mixer

            outcome = mixer.dry_run(config, **options) if dry_run else mixer.run(config, **options)
        if dry_run:
            _print_report(outcome, report)
        else:
            _print_totals(config, outcome)


def _print_report(result: dict, report: str | None) -> None:
    from dolma_sql.mixer.impact import print_report, write_report

    print_report(result)
    if report:
        write_report(result, report)


def _print_totals(config: MixerConfig, mixed: MixResult) -> None:
    totals = mixed.totals
    console.print(
        f"mixed {totals.get('documents', 0):,.0f} documents into {mixed.shards} shard(s): "
        f"kept {totals.get('documents_kept', 0):,.0f}"
        + (f", {totals.get('units_skipped', 0):,.0f} shard(s) already done" if totals.get("units_skipped") else "")
    )
    for stream in config.streams:
        console.print(f"  {stream.name}: {stream.output.path}", highlight=False, markup=False, soft_wrap=True)


def _explain(config: MixerConfig) -> None:
    """Print each stream's SQL: highlighted on a terminal, plain (never wrapped) when piped."""
    from rich.syntax import Syntax

    from dolma_sql.mixer.plan import compile_recipe

    out = new_console()
    for plan in compile_recipe(config):
        header = f"-- stream {plan.index}: {plan.stream.name}"
        if out.is_terminal:
            out.print(header, highlight=False)
            out.print(Syntax(plan.sql, "sql"))
        else:
            typer.echo(f"{header}\n{plan.sql};")
