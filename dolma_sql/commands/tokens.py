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
from dolma_sql.help import config_command
from dolma_sql.runtime.executors import executor_of

if TYPE_CHECKING:  # the tokenizer stack is imported when the command runs, not when it is registered
    from dolma_sql.config.tokens import TokensConfig
    from dolma_sql.tokenizer import TokensResult


def tokenize(config: TokensConfig) -> TokensResult:
    """Run ``config`` as the command line does (on the executor it asks for) and print a summary."""
    from dolma_sql import tokenizer
    from dolma_sql.runtime.progress import console, warn

    started = time.perf_counter()
    executor = executor_of(config)
    executor.prepare(tokenizer.__name__)
    with executor:
        result = tokenizer.run(config, executor=executor, warn=warn)
    if config.dryrun:
        console.print(config)
        console.print(f"dry run: {result.files:,} files would be tokenized into {result.groups:,} groups")
        return result
    counters = result.counters
    if counters.get("units_skipped"):
        console.print(f"resumed: {counters['units_skipped']:,.0f} of {result.groups:,} groups were already done")
    seconds = time.perf_counter() - started
    console.print(
        f"{counters.get('documents', 0):,.0f} documents from {result.files:,} files, {counters.get('tokens', 0):,.0f} tokens "
        f"in {counters.get('memmaps', 0):,.0f} memmaps in {config.destination} ({counters.get('tokens', 0) / seconds:,.0f} tokens/s)",
        highlight=False,
        soft_wrap=True,
    )
    return result


def print_stats(destination: str) -> None:
    from rich.table import Table

    from dolma_sql.runtime.progress import console
    from dolma_sql.tokenizer import tokens_stats

    stats = tokens_stats(destination)
    table = Table(title=f"{destination}: {stats['memmaps']} memmaps")
    table.add_column("source", overflow="fold")  # a path: folded, never cut
    table.add_column("documents", justify="right", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    for source, entry in stats["sources"].items():
        table.add_row(source, f"{entry['documents']:,}", f"{entry['tokens']:,}")
    table.add_row("[bold]total", f"[bold]{stats['documents']:,}", f"[bold]{stats['tokens']:,}")
    console.print(table)


def register(app: typer.Typer) -> None:
    @app.command(
        "tokens", cls=config_command("dolma_sql.config.tokens:TokensConfig"), context_settings=DOLMA_FLAGS, help="Tokenize documents into dolma/OLMo memmaps (dolma's flags)."
    )
    def tokens(
        ctx: typer.Context,
        stats: Optional[str] = typer.Option(None, "--stats", help="Summarise a tokens destination (documents, tokens per source) and exit."),
    ) -> None:
        if stats is not None:
            print_stats(stats)
            return
        from dolma_sql.config.tokens import TokensConfig

        tokenize(command_config(ctx, TokensConfig))
