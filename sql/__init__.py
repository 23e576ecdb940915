"""SQL the engine runs, as ``.sql`` files beside this module, parsed into sqlglot trees.

Templates use named placeholders (``:name``) that the engine fills with sqlglot
expressions via :func:`fill`, so SQL is composed as trees, never glued as strings.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

import sqlglot
from sqlglot import exp

DIALECT = "duckdb"


@lru_cache(maxsize=None)
def _parsed(name: str) -> exp.Expression:
    text = files(__name__).joinpath(f"{name}.sql").read_text(encoding="utf-8")
    return sqlglot.parse_one(text, read=DIALECT)


def load_sql(name: str) -> exp.Expression:
    """A fresh copy of the parsed template ``sql/<name>.sql``."""
    return _parsed(name).copy()


def fill(template: exp.Expression, **values: exp.Expression) -> exp.Expression:
    """Replace ``:name`` placeholders with expressions."""
    return exp.replace_placeholders(template, **values)


def render(expression: exp.Expression, *, pretty: bool = False) -> str:
    """DuckDB SQL text of ``expression`` without the templates' comments."""
    return expression.sql(dialect=DIALECT, pretty=pretty, comments=False)
