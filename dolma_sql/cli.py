"""The ``dolma-sql`` command line.

``dolma-sql [-c CONFIG] COMMAND [dolma's dotted flags…]``: the same invocations as
``dolma``. Each command lives in :mod:`dolma_sql.commands` as a module with a
``register(app)`` function, discovered here, so adding a command touches no shared file.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import signal
import sys
from typing import Optional

import typer
from rich.markup import escape

from dolma_sql.runtime.tuning import exiting_without_cycle_collection, tune_runtime

tune_runtime()  # before any command module imports DuckDB, Polars or NumPy

import dolma_sql.commands  # noqa: E402
from dolma_sql.errors import DolmaSqlError  # noqa: E402
from dolma_sql.runtime import progress  # noqa: E402

app = typer.Typer(
    name="dolma-sql",
    help="Dolma's corpus toolkit (tag, dedupe, mix, tokens, stat, warc) on DuckDB + Arrow.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # dolma takes -h too
)


@app.callback()
def _global_options(
    ctx: typer.Context,
    config: Optional[str] = typer.Option(None, "-c", "--config", help="JSON or YAML config file (dolma's -c)."),
) -> None:
    ctx.obj = {"config": config}


def _register_commands() -> None:
    for module in sorted(pkgutil.iter_modules(dolma_sql.commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"dolma_sql.commands.{module.name}").register(app)


_register_commands()


def _named_as_module_main() -> None:
    """Give the ``dolma-sql`` script's ``__main__`` the spec ``python -m dolma_sql`` gives it.

    A process the local executor spawns runs the caller's main script again before its first unit, unless
    that script is a package's ``__main__`` module, which multiprocessing skips: run as the script, every
    worker would import the CLI (typer, rich) for nothing. The units and tagger modules the workers need
    are imported by name, never from ``__main__``.
    """
    script = sys.modules["__main__"]
    if getattr(script, "__spec__", None) is None:
        script.__spec__ = importlib.util.find_spec("dolma_sql.__main__")


def _terminated(signum, frame) -> None:
    """SIGTERM (``kill``, ``timeout``, a job manager) ends a run as Ctrl-C does: its workers stopped, its locks
    released, a line saying what is kept."""
    raise KeyboardInterrupt


def main() -> None:
    _named_as_module_main()
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except DolmaSqlError as error:
        progress.console.print(f"[bold red]error:[/] {escape(str(error))}", markup=True, highlight=False, soft_wrap=True)
        sys.exit(1)
    finally:
        exiting_without_cycle_collection()
