"""One module per CLI command; each exposes ``register(app)``. Shared plumbing lives here.

Every command has the same shape: its typed config is loaded and validated here, the executor is
built from the config's ``executor`` and ``processes`` (``--executor local`` on the command line) by
:func:`dolma_sql.runtime.executors.executor_of`, and both are handed to the command's library
function, which never builds an executor.
"""

from __future__ import annotations

from typing import TypeVar

import typer

from dolma_sql.config import load_config

T = TypeVar("T")

DOLMA_FLAGS = {"allow_extra_args": True, "ignore_unknown_options": True}
"""Typer context settings for commands that accept dolma's dotted flags (``--a.b value``)."""


def command_config(ctx: typer.Context, schema: type[T], *, positional_config: bool = False) -> T:
    """The command's typed config: the ``-c`` file, then dotted flags from the command line.

    With ``positional_config`` a leading non-option argument is the config file too
    (``dolma-sql mix recipe.yaml`` as well as ``dolma-sql -c recipe.yaml mix``). ``--executor KIND``
    is short for ``--executor.kind KIND``.
    """
    args = [_executor_flag(arg) for arg in ctx.args]
    root = ctx.find_root()
    config_file = (root.obj or {}).get("config")
    if positional_config and args and not args[0].startswith("-"):
        config_file = args.pop(0)
    own = [option[2:] for parameter in ctx.command.params for option in getattr(parameter, "opts", []) if option.startswith("--")]
    return load_config(schema, config_file=config_file, flags=args, other_options=own)


def _executor_flag(arg: str) -> str:
    if arg == "--executor" or arg.startswith("--executor="):
        return arg.replace("--executor", "--executor.kind", 1)
    return arg
