"""``dolma-sql demo``: mix a bundled sample corpus with a bundled recipe, end to end."""

from __future__ import annotations

import os
import shlex
from importlib.resources import as_file, files
from pathlib import Path

import typer
import yaml
from rich.table import Table

from dolma_sql import storage
from dolma_sql.runtime.progress import new_console

console = new_console()


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo_command(
        folder: str = typer.Argument("dolma-sql-demo", help="Where to write the sample corpus and the mixed output."),
    ) -> None:
        """Write a small dolma-layout corpus with attributes to FOLDER (new, empty, or an earlier demo's) and mix it with the bundled recipe."""
        from dolma_sql import mix
        from dolma_sql.config import load_config
        from dolma_sql.config.mix import MixerConfig

        folder = os.path.abspath(folder)
        check_demo_folder(folder)
        sample = files("dolma_sql.recipes")
        with as_file(sample.joinpath("demo")) as source:
            for path in sorted(Path(source).rglob("*")):
                if path.is_file() and path.relative_to(source).parts[0] in ("documents", "attributes"):
                    storage.copy_to(str(path), os.path.join(folder, path.relative_to(source)))
        recipe_path = os.path.join(folder, "recipe.yaml")
        storage.write_bytes(recipe_path, anchored_recipe(sample.joinpath("demo.yaml").read_text(encoding="utf-8"), folder).encode())
        storage.urls.remove_tree(os.path.join(folder, "output"))

        config = load_config(MixerConfig, config_file=recipe_path, flags=[])
        totals = mix(config).totals
        table = Table(title="dolma-sql demo", show_header=False)
        table.add_column(no_wrap=True)
        table.add_column(overflow="fold")
        table.add_row("corpus", os.path.join(folder, "documents"))
        table.add_row("recipe", recipe_path)
        table.add_row("documents in", f"{totals.get('documents', 0):,.0f}")
        table.add_row("documents kept", f"{totals.get('documents_kept', 0):,.0f}")
        table.add_row("documents with spans replaced", f"{totals.get('documents_span_replaced', 0):,.0f}")
        table.add_row("output", config.streams[0].output.path)
        console.print(table)
        recipe = shlex.quote(recipe_path)
        documents = shlex.quote(os.path.join(folder, "documents", "*.jsonl.gz"))
        console.print("Next, from any folder:", highlight=False)
        for what, command in (
            ("print the SQL the recipe compiles to", f"dolma-sql mix {recipe} --explain"),
            ("report what each rule removes", f"dolma-sql mix {recipe} --dry-run"),
            ("query the corpus with SQL", f'dolma-sql sql --documents {documents} --attributes quality "SELECT count(*) FROM documents"'),
        ):
            console.print(f"  # {what}\n  {command}", highlight=False, soft_wrap=True)


RECIPE_HEADER = "# The recipe of `dolma-sql demo`, with the paths of the demo folder (it runs from any folder).\n"


def check_demo_folder(folder: str) -> None:
    """The demo writes documents/, attributes/, recipe.yaml and output/ into ``folder``, replacing what is there: only
    into a new or empty folder, or one an earlier demo made (its recipe says so)."""
    from dolma_sql.errors import ConfigError

    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ConfigError(f"{folder} is a file", path="FOLDER", hint="name a new folder for the demo")
    if os.path.isdir(folder) and os.listdir(folder) and not _made_by_demo(folder):
        raise ConfigError(
            f"{folder} is not empty, and no earlier demo made it",
            path="FOLDER",
            hint="name a new folder: the demo writes documents/, attributes/, recipe.yaml and output/ there, replacing what is there",
        )
    storage.check_writable(folder, where="FOLDER")


def _made_by_demo(folder: str) -> bool:
    try:
        with open(os.path.join(folder, "recipe.yaml"), encoding="utf-8") as recipe:
            return recipe.readline() == RECIPE_HEADER
    except (OSError, UnicodeDecodeError):
        return False


def anchored_recipe(recipe: str, folder: str) -> str:
    """The bundled recipe with its document globs and output paths under ``folder``, so that it runs from any folder."""
    config = yaml.safe_load(recipe)
    for stream in config["streams"]:
        stream["documents"] = [os.path.join(folder, pattern) for pattern in stream["documents"]]
        stream["output"]["path"] = os.path.join(folder, stream["output"]["path"])
    return RECIPE_HEADER + yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=10_000)
