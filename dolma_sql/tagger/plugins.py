"""Loading the user's ``--tagger_modules``: dolma-sql tagger modules and plugins written for upstream dolma.

A tagger module registers its taggers when imported (the :func:`~dolma_sql.tagging.tagger`
decorator, or dolma's ``add_tagger``: see :mod:`.upstream_plugins`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Sequence

from dolma_sql.errors import ConfigError
from dolma_sql.tagger.upstream_plugins import upstream_imports


def import_tagger_modules(modules: Sequence[str]) -> None:
    """Import plugin modules given as import paths (``pkg.mod``) or file paths (``taggers/mine.py``).

    As upstream, a file's folder goes on ``sys.path`` (so it may import its neighbours), and
    ``import dolma`` works in it without upstream installed.
    """
    with upstream_imports():
        for module in modules:
            try:
                _import(module)
            except ModuleNotFoundError as error:
                raise ConfigError(f"tagger module {module!r} cannot be imported: {error}", path="tagger_modules",
                                  hint=f"pip install {error.name.partition('.')[0]}" if error.name and not error.name.startswith("dolma") else None) from None


def _import(module: str) -> None:
    path = module if module.endswith(".py") or os.sep in module else None
    if path is None:
        try:
            importlib.import_module(module)
            return
        except ModuleNotFoundError as error:
            if error.name != module and not module.startswith(f"{error.name}."):
                raise
            path = module if os.path.exists(module) else None
    if path is None or not os.path.exists(path):
        raise ConfigError(
            f"cannot import tagger module {module!r}",
            path="tagger_modules",
            hint="give an importable module name (on $PYTHONPATH) or the path of a .py file",
        )
    name = "dolma_sql_plugin_" + re.sub(r"\W", "_", os.path.splitext(os.path.abspath(path))[0])
    if name in sys.modules:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(name, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[name]
        raise
