"""``--help`` of the commands configured by a typed struct: every option of the struct, generated.

The options, their types, defaults and descriptions come from the config structs themselves
(:func:`dolma_sql.config.loading.describe_options`: a field's description is the docstring under
it), so the help lists exactly what the command accepts and cannot drift from it.
"""

from __future__ import annotations

import importlib
from typing import Any
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand

from dolma_sql.config.loading import OptionHelp, describe_options
from dolma_sql.runtime.progress import new_console

DESCRIPTION_WIDTH = 40
"""Below this many columns left for descriptions beside the names, each description goes under its name."""


def config_command(schema: str) -> type[TyperCommand]:
    """A command class whose help adds every option of the config struct ``schema`` (``"module:Class"``,
    imported only when help is shown) to the options the command declares."""

    class ConfigCommand(TyperCommand):
        config_schema = schema

        def format_help(self, ctx: Any, formatter: Any) -> None:
            super().format_help(ctx, formatter)
            print_options(describe_options(resolve(self.config_schema)), new_console())

    return ConfigCommand


def resolve(schema: str) -> type:
    """The struct named ``"module:Class"``."""
    module, _, name = schema.partition(":")
    return getattr(importlib.import_module(module), name)


def print_options(options: list[OptionHelp], console: Console) -> None:
    """The options without a section first, then one panel per section in declaration order."""
    console.print(
        Padding(Text("dolma's options: --name VALUE on the command line, or name: value in the -c file (a BOOL is set by --name, unset by --no-name).", style="dim"), (0, 1))
    )
    sections: dict[str, list[OptionHelp]] = {"": []}
    for option in options:
        sections.setdefault(_section(option), []).append(option)
    for section, members in sections.items():
        if members:
            title = "Config options" if not section else f"{section} (in the config file)" if not members[0].flag else f"--{section}.*"
            console.print(Panel(_rows(members, console.width - 4), title=title, title_align="left", border_style="dim"))


def _section(option: OptionHelp) -> str:
    """``""`` for a top-level option, ``dedupe`` for ``dedupe.paragraphs.attribute_name``, ``streams[]`` for keys in a list."""
    if not option.flag:
        return option.name.split("[]", 1)[0] + "[]"
    return option.name.split(".", 1)[0] if "." in option.name else ""


def _rows(options: list[OptionHelp], width: int) -> Table | Group:
    names = [Text(("--" if option.flag else "") + option.name, style="bold cyan") for option in options]
    types = [Text(option.type, style="yellow") for option in options]
    details = [_details(option) for option in options]
    name_width = max(len(name) for name in names) + max(len(kind) for kind in types) + 4
    if width - name_width >= DESCRIPTION_WIDTH:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        for row in zip(names, types, details):
            grid.add_row(*row)
        return grid
    return Group(*(part for name, kind, detail in zip(names, types, details) for part in (Text.assemble(name, " ", kind), Padding(detail, (0, 0, 0, 4)))))


def _details(option: OptionHelp) -> Text:
    text = Text(option.description or "")
    if option.required:
        text.append(" [required]", style="red")
    elif option.default is not None and option.default != "[]":
        text.append(f" [default: {option.default}]", style="dim")
    return text
