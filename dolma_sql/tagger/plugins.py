"""Loading tagger modules: the built-in families in ``udfs/`` and the user's ``--tagger_modules``.

A tagger module registers its taggers when imported (the :func:`~dolma_sql.tagging.tagger` decorator).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import re
import sys
from collections.abc import Sequence
from functools import cache

from dolma_sql.errors import ConfigError


@cache
def load_builtin_taggers() -> None:
    """Import every module of :mod:`dolma_sql.udfs` (each registers its family), once per process."""
    import dolma_sql.udfs

    for module in pkgutil.iter_modules(dolma_sql.udfs.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"dolma_sql.udfs.{module.name}")


def import_tagger_modules(modules: Sequence[str]) -> None:
    """Import plugin modules given as import paths (``pkg.mod``) or file paths (``taggers/mine.py``)."""
    for module in modules:
        path = module if module.endswith(".py") or os.sep in module else None
        if path is None:
            try:
                importlib.import_module(module)
                continue
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
            continue
        spec = importlib.util.spec_from_file_location(name, path)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        spec.loader.exec_module(loaded)
