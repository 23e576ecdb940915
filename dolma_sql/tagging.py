"""The tagger API: what a tagger module imports, and what uses taggers outside ``dolma-sql tag``.

A tagger is a function over a batch of documents that returns spans per span type::

    from dolma_sql.tagging import Spans, TagBatch, tagger

    @tagger("vowel_count_v1", types=["vowels"])
    def vowel_count(batch: TagBatch) -> dict[str, Spans]:
        counts = batch.series.str.count_matches("[aeiou]").to_numpy()
        return {"vowels": Spans.document(batch.lengths, counts)}

Pass its module to ``dolma-sql tag`` or ``list`` with ``--tagger_modules my_taggers.py``.
:func:`registry` and :func:`get_tagger` find taggers, :func:`register_duckdb_functions` makes
them DuckDB functions. These names are stable (a test pins them); the machinery behind them
lives in :mod:`dolma_sql.tagger`.
"""

from dolma_sql.formats.attributes import Spans
from dolma_sql.tagger.batch import TagBatch
from dolma_sql.tagger.registry import TaggerSpec, get_tagger, make_variable_name, registry, require_modules, tagger
from dolma_sql.tagger.sql_functions import register_duckdb_functions

__all__ = [
    "Spans",
    "TagBatch",
    "TaggerSpec",
    "get_tagger",
    "make_variable_name",
    "register_duckdb_functions",
    "registry",
    "require_modules",
    "tagger",
]
