"""dolma-sql: AI2's Dolma corpus toolkit, re-implemented on DuckDB + Arrow.

The public API is this module's ``__all__`` (guarded by a test): one function per command, taking the
command's config as a dict or typed struct, and :func:`corpus` for SQL over a corpus. See
:mod:`dolma_sql.api`. Taggers are written against :mod:`dolma_sql.tagging`.
"""

from pathlib import Path as _Path

from dolma_sql.api import corpus, dedupe, mix, stat, tag, tokens

__version__ = "0.1.0"
__all__ = ["__version__", "corpus", "dedupe", "mix", "stat", "tag", "tokens"]

# Installed, the top-level sql/, udfs/ and recipes/ folders are the subpackages dolma_sql.sql, .udfs and
# .recipes (pyproject's package-dir). Run from a source checkout (`python -m dolma_sql` at its root, as
# the benches do), the same names resolve to those folders: the checkout's root is searched after this
# package's own folder.
_checkout = _Path(__file__).resolve().parent.parent
if (_checkout / "pyproject.toml").is_file() and all((_checkout / name / "__init__.py").is_file() for name in ("sql", "udfs", "recipes")):
    __path__.append(str(_checkout))
