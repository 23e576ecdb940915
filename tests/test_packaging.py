"""A plain (non-editable) install ships every package of the source tree."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_every_package_of_the_tree_is_listed_for_installation():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    in_tree = {".".join(init.parent.relative_to(REPO).parts) for init in (REPO / "dolma_sql").rglob("__init__.py")}
    assert in_tree <= listed, sorted(in_tree - listed)
