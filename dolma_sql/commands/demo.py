"""``dolma-sql demo``: mix a bundled sample corpus with a bundled recipe, end to end."""

from __future__ import annotations

import os
from importlib.resources import as_file, files
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from dolma_sql import storage

console = Console()


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo_command(
        folder: str = typer.Argument("dolma-sql-demo", help="Where to write the sample corpus and the mixed output."),
    ) -> None:
        """Write a small dolma-layout corpus with attributes to FOLDER and mix it with the bundled recipe."""
        from dolma_sql import mix
        from dolma_sql.config import load_config
        from dolma_sql.config.mix import MixerConfig

        folder = os.path.abspath(folder)
        sample = files("dolma_sql.recipes")
        with as_file(sample.joinpath("demo")) as source:
            for path in sorted(Path(source).rglob("*")):
                if path.is_file() and path.relative_to(source).parts[0] in ("documents", "attributes"):
                    storage.copy_to(str(path), os.path.join(folder, path.relative_to(source)))
        recipe_path = os.path.join(folder, "recipe.yaml")
        with as_file(sample.joinpath("demo.yaml")) as recipe:
            storage.copy_to(str(recipe), recipe_path)
        storage.urls.remove_tree(os.path.join(folder, "output"))

        config = load_config(MixerConfig, config_file=recipe_path, flags=[])
        previous = os.getcwd()
        os.chdir(folder)
        try:
            result = mix(config)
        finally:
            os.chdir(previous)

        totals = result.totals
        table = Table(title="dolma-sql demo", show_header=False)
        table.add_row("corpus", os.path.join(folder, "documents"))
        table.add_row("recipe", recipe_path)
        table.add_row("documents in", f"{totals.get('documents', 0):,.0f}")
        table.add_row("documents kept", f"{totals.get('documents_kept', 0):,.0f}")
        table.add_row("documents with spans replaced", f"{totals.get('documents_span_replaced', 0):,.0f}")
        table.add_row("output", os.path.join(folder, config.streams[0].output.path))
        console.print(table)
        console.print(f"The SQL the recipe compiled to:   dolma-sql mix {recipe_path} --explain", highlight=False, soft_wrap=True)
        console.print(f"What each rule removes:           dolma-sql mix {recipe_path} --dry-run", highlight=False, soft_wrap=True)
        console.print(f"Query the corpus:                 dolma-sql sql --documents '{folder}/documents/*.jsonl.gz' --attributes quality \\\n"
                      "                                    \"SELECT count(*) FROM documents\"", highlight=False, soft_wrap=True)
