"""One module per CLI command; each exposes ``register(app)``. Shared plumbing lives here."""

from __future__ import annotations

from typing import TypeVar

import typer

from dolma_sql.config import load_config

T = TypeVar("T")

DOLMA_FLAGS = {"allow_extra_args": True, "ignore_unknown_options": True}
"""Typer context settings for commands that accept dolma's dotted flags (``--a.b value``)."""


def command_config(ctx: typer.Context, schema: type[T], *, config_file: str | None = None, flags: list[str] | None = None) -> T:
    """The command's typed config: ``-c`` file (global or positional), then dotted flags from the command line."""
    root = ctx.find_root()
    global_file = (root.obj or {}).get("config") if root.obj else None
    return load_config(schema, config_file=config_file or global_file, flags=list(flags if flags is not None else ctx.args))
