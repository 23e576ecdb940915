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

from dolma_sql.errors import ConfigError, raised_at
from dolma_sql.tagger.upstream_plugins import upstream_imports


def import_tagger_modules(modules: Sequence[str]) -> None:
    """Import plugin modules given as import paths (``pkg.mod``), file paths (``taggers/mine.py``) or package folders.

    As upstream, a file's folder goes first on ``sys.path`` and the file is imported under its own name, so it may
    import its neighbours (another plugin file among them, which is then imported once); ``import dolma`` works in
    it without upstream installed. A module that fails to import is a config error naming the file and line.
    """
    with upstream_imports():
        for module in modules:
            try:
                _import(module)
            except ModuleNotFoundError as error:
                raise ConfigError(f"tagger module {module!r} cannot be imported: {error}", path="tagger_modules",
                                  hint=f"pip install {error.name.partition('.')[0]}" if error.name and not error.name.startswith("dolma") else None) from None
            except ConfigError:
                raise
            except Exception as error:
                raise ConfigError(f"tagger module {module!r} failed while it was imported: {type(error).__name__}: {error}",
                                  path="tagger_modules", hint=f"fix {raised_at(error)}") from None


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
            hint="give an importable module name (on $PYTHONPATH), the path of a .py file, or a package's folder",
        )
    path = os.path.abspath(path)
    folder, name = os.path.dirname(path.rstrip(os.sep)), os.path.splitext(os.path.basename(path.rstrip(os.sep)))[0]
    if folder in sys.path:
        sys.path.remove(folder)
    sys.path.insert(0, folder)
    if os.path.isdir(path):  # a package
        importlib.import_module(name)
        return
    loaded = sys.modules.get(name)
    if loaded is not None and os.path.abspath(getattr(loaded, "__file__", "") or "") == path:
        return  # imported already, by a neighbour or an earlier --tagger_modules entry
    if loaded is not None:  # another module has this name: the file gets one of its own
        name = "dolma_sql_plugin_" + re.sub(r"\W", "_", os.path.splitext(path)[0])
        if name in sys.modules:
            return
    spec = importlib.util.spec_from_file_location(name, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[name]
        raise
