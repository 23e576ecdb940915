"""``dolma-sql tokens``: tokenize documents into dolma/OLMo training memmaps.

Accepts dolma's invocation unchanged (``--documents``, ``--destination``, ``--tokenizer.name_or_path``,
``--tokenizer.eos_token_id``, ``--processes``, ``-c`` configs, …). A non-empty destination is refused
unless ``--resume`` (finish an interrupted run: finished groups are kept) or ``--overwrite``.
``dolma-sql tokens --stats DEST`` summarises a destination instead.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional

import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config

if TYPE_CHECKING:  # the tokenizer stack is imported when the command runs, not when it is registered
    from dolma_sql.tokens import TokensConfig


def run(config: TokensConfig) -> dict[str, float]:
    from dolma_sql.runtime.local import LocalExecutor
    from dolma_sql.runtime.progress import console
    from dolma_sql.runtime import run_units
    from dolma_sql.tokens import plan_tokens, tokenize_group, worker_env

    started = time.perf_counter()
    plan = plan_tokens(config, warn=lambda message: console.print(f"[yellow]warning:[/] {message}"))
    if config.dryrun:
        console.print(config)
        console.print(f"dry run: {plan.files} files would be tokenized")
        return {}
    groups = len(plan.units) + len(plan.skipped)
    if plan.skipped:
        console.print(f"resuming: {len(plan.skipped)} of {groups} groups are already done")
    console.print(f"Tokenizing {plan.files:,} source files into {groups:,} groups in {config.destination}")
    processes = max(1, min(config.processes, len(plan.units)))
    totals = run_units(tokenize_group, plan.units, executor=LocalExecutor(processes, env=worker_env()), label="tokens")
    seconds = time.perf_counter() - started
    tokens = totals.get("tokens", 0)
    console.print(
        f"{totals.get('documents', 0):,.0f} documents, {tokens:,.0f} tokens in {totals.get('memmaps', 0):,.0f} memmaps "
        f"({tokens / seconds:,.0f} tokens/s)"
    )
    return totals


def print_stats(destination: str) -> None:
    from rich.table import Table

    from dolma_sql.runtime.progress import console
    from dolma_sql.tokens import tokens_stats

    stats = tokens_stats(destination)
    table = Table(title=f"{destination}: {stats['memmaps']} memmaps")
    for header in ("source", "documents", "tokens"):
        table.add_column(header, justify="left" if header == "source" else "right")
    for source, entry in stats["sources"].items():
        table.add_row(source, f"{entry['documents']:,}", f"{entry['tokens']:,}")
    table.add_row("[bold]total", f"[bold]{stats['documents']:,}", f"[bold]{stats['tokens']:,}")
    console.print(table)


def register(app: typer.Typer) -> None:
    @app.command("tokens", context_settings=DOLMA_FLAGS, help="Tokenize documents into dolma/OLMo memmaps (dolma's flags).")
    def tokens(
        ctx: typer.Context,
        stats: Optional[str] = typer.Option(None, "--stats", help="Summarise a tokens destination (documents, tokens per source) and exit."),
    ) -> None:
        if stats is not None:
            print_stats(stats)
            return
        from dolma_sql.tokens import TokensConfig

        run(command_config(ctx, TokensConfig))
