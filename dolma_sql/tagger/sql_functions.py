"""Taggers as DuckDB functions, for ``dolma-sql sql`` and ``shell``: ``gopher_v1(text) -> VARCHAR``."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from dolma_sql.formats.attributes import encode_attribute_fields
from dolma_sql.tagger.batch import TagBatch
from dolma_sql.tagger.registry import get_tagger, make_variable_name, registry


def tag_texts(name: str, texts: pa.Array, seed: int = 0, options: dict | None = None, **columns: pa.Array) -> pa.Array:
    """Run tagger ``name`` on Arrow ``texts`` and return each row's ``{type: [[start, end, score], …]}`` as JSON text."""
    spec = get_tagger(name)
    table = pa.table({"text": texts.cast(pa.large_string()), **columns})
    output = spec.run(TagBatch(table, seed=seed, options=options or {}))
    return encode_attribute_fields(len(table), spec.keyed("", output)).cast(pa.string())


def _duckdb_udf(name: str, extra: tuple[str, ...]):
    """A function of exactly ``1 + len(extra)`` Arrow arguments (DuckDB checks the arity)."""
    if not extra:
        return lambda texts: tag_texts(name, texts)
    if len(extra) == 1:
        return lambda texts, first: tag_texts(name, texts, **{extra[0]: first})
    raise NotImplementedError(f"tagger {name!r} needs {extra}: at most one field besides text is supported in SQL")


def register_duckdb_functions(connection, names: Sequence[str] | None = None) -> list[str]:
    """Register taggers as Arrow-vectorized DuckDB scalar functions: ``gopher_v1(text) -> VARCHAR``.

    The function returns the row's attributes as JSON text keyed by span type (no experiment or
    tagger prefix), e.g. ``{"word_count":[[0,333,78.0]],…}``; query it with DuckDB's JSON
    functions (``gopher_v1(text)->'$.word_count[0][2]'``). Taggers that need ``metadata`` take it
    as a second VARCHAR argument (JSON text).
    Names with characters DuckDB identifiers cannot hold are registered with dolma's ``_`` sanitising.
    """
    import duckdb

    registered = []
    specs = [get_tagger(n) for n in names] if names is not None else list(registry().values())
    for spec in specs:
        extra = [f for f in spec.needs if f == "metadata"]  # other fields (a plugin's ``version``) are null in SQL
        function_name = make_variable_name(spec.name)
        connection.create_function(
            function_name,
            _duckdb_udf(spec.name, tuple(extra)),
            [duckdb.sqltype("VARCHAR")] * (1 + len(extra)),
            duckdb.sqltype("VARCHAR"),
            type="arrow",
            null_handling="special",
        )
        registered.append(function_name)
    return registered
