"""Taggers: the registry, the span representation, attribute-row encoding, and the per-file runtime.

A tagger is a pure function over one batch of documents (Arrow columns) that returns, for each
span type it emits, a :class:`Spans` table: parallel numpy arrays ``rows, starts, ends, scores``
(offsets in code points, rows ascending). Taggers register with :func:`tagger`; the runtime reads
each document file once, runs every requested tagger per batch, and encodes the attribute rows
``{"id", "attributes", "source"}`` column-wise with Arrow string kernels, exactly as dolma writes them.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import json
import os
import pkgutil
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.errors import ConfigError, DolmaSqlError, InputError
from dolma_sql.formats.attributes import Spans, encode_attribute_fields, encode_rows, round_scores  # noqa: F401  (re-exported for taggers)



TaggerOutput = dict[str, Spans]
"""Span type -> spans, in the order the types appear in the attribute row."""


# ---------------------------------------------------------------------------------------------- batch
@dataclass
class TagBatch:
    """The documents a tagger sees: Arrow columns plus derived features computed once per batch.

    Derived features (lengths, a polars view of the text, paragraph splits, …) are cached with
    :meth:`cached`, so several taggers in one run share them.
    """

    table: pa.Table
    seed: int = 0
    options: dict = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return self.table.num_rows

    def column(self, name: str) -> pa.Array:
        return _combined(self.table.column(name))

    @cached_property
    def text(self) -> pa.LargeStringArray:
        return self.column("text").cast(pa.large_string())

    @cached_property
    def lengths(self) -> np.ndarray:
        """Length of each text in code points (Python's ``len``)."""
        return pc.utf8_length(self.text).to_numpy(zero_copy_only=False).astype(np.int64)

    @cached_property
    def series(self):
        """The text as a polars Series (polars' Rust string kernels run on it)."""
        import polars as pl

        return pl.Series("text", self.text)

    def metadata_field(self, key: str):
        """``metadata.<key>`` of each document as a polars Series of JSON-path matches (strings unquoted, null if absent)."""
        import polars as pl

        return pl.Series(self.column("metadata").cast(pa.large_string())).str.json_path_match(f"$.{key}")

    def cached(self, key: str, compute: Callable[[], object]):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


def _combined(column) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


# ---------------------------------------------------------------------------------------------- registry
TaggerFn = Callable[[TagBatch], TaggerOutput]


@dataclass(frozen=True)
class TaggerSpec:
    """A registered tagger: its function and what ``dolma-sql list`` shows about it."""

    name: str
    fn: TaggerFn
    types: tuple[str, ...]
    defaults: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    requires: str | None = None
    check: Callable[[dict], None] | None = None
    vectorized: bool = True

    @property
    def module(self) -> str:
        return self.fn.__module__


_REGISTRY: dict[str, TaggerSpec] = {}


def tagger(
    name: str,
    *,
    types: Iterable[str],
    defaults: Iterable[str] = (),
    needs: Iterable[str] = (),
    requires: str | None = None,
    check: Callable[[dict], None] | None = None,
    vectorized: bool = True,
) -> Callable[[TaggerFn], TaggerFn]:
    """Register ``fn(batch) -> {type: Spans}`` under ``name``.

    ``types`` lists the span types it emits (``dolma-sql list`` shows them), ``defaults`` the types
    written even when empty, ``needs`` extra document fields (``metadata``, …), ``requires`` the
    optional package it imports, and ``check(options)`` a function that raises :class:`ConfigError`
    when a dependency or model is missing (run before any file is read; ``options`` holds the
    configured model and list paths, also available to the tagger as ``batch.options``). ``vectorized=False`` marks
    taggers that do per-document work (a library called per text).
    """

    def register(fn: TaggerFn) -> TaggerFn:
        existing = _REGISTRY.get(name)
        if existing is not None and existing.fn.__qualname__ != fn.__qualname__:
            raise ValueError(f"tagger {name!r} is already registered by {existing.module}")
        _REGISTRY[name] = TaggerSpec(name, fn, tuple(types), tuple(defaults), tuple(needs), requires, check, vectorized)
        return fn

    return register


def load_builtin_taggers() -> None:
    """Import every module of :mod:`dolma_sql.udfs` (each registers its family)."""
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


def registry() -> dict[str, TaggerSpec]:
    load_builtin_taggers()
    return dict(sorted(_REGISTRY.items()))


def get_tagger(name: str) -> TaggerSpec:
    """The registered tagger ``name``; an unknown name is a ConfigError suggesting the nearest names."""
    known = registry()
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, list(known), n=5, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else "run `dolma-sql list` to see every tagger"
    raise ConfigError(f"unknown tagger {name!r}", path="taggers", hint=hint)


def make_variable_name(name: str) -> str:
    """dolma's key sanitising: every character outside ``[A-Za-z0-9_]`` becomes ``_``."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


# ---------------------------------------------------------------------------------------------- running taggers
def run_tagger(spec: TaggerSpec, batch: TagBatch) -> TaggerOutput:
    """Run one tagger on a batch and check what it returned (a plugin bug should say which tagger)."""
    output = spec.fn(batch)
    for key, spans in output.items():
        if not isinstance(spans, Spans):
            raise TypeError(f"tagger {spec.name!r} returned {type(spans).__name__} for {key!r}; expected Spans")
        if len(spans) and (spans.rows[0] < 0 or spans.rows[-1] >= len(batch) or np.any(np.diff(spans.rows) < 0)):
            raise ValueError(f"tagger {spec.name!r}: rows of {key!r} must be ascending and within the batch")
    return output


def keyed_output(prefix: str, spec: TaggerSpec, output: TaggerOutput) -> list[tuple[str, Spans, bool]]:
    """``(prefix__type, spans, always)`` for the tagger's defaults first, then its other types (no prefix: bare types)."""
    def key(span_type: str) -> str:
        return f"{prefix}__{make_variable_name(span_type)}" if prefix else make_variable_name(span_type)

    keyed = [(key(t), output.get(t, Spans.empty()), True) for t in spec.defaults]
    keyed += [(key(t), s, False) for t, s in output.items() if t and t not in spec.defaults]
    return keyed


def require_modules(what: str, modules: Sequence[str], hint: str) -> None:
    """A ConfigError naming which of ``modules`` ``what`` needs and are not installed (found without importing them)."""
    missing = [module for module in modules if importlib.util.find_spec(module) is None]
    if missing:
        raise ConfigError(f"{what} cannot run without {' and '.join(missing)}", path="taggers", hint=hint)


def check_taggers(names: Sequence[str], options: dict | None = None) -> list[TaggerSpec]:
    """Resolve names and run each tagger's dependency/model check before any work starts."""
    specs = [get_tagger(name) for name in names]
    for spec in specs:
        if spec.check is not None:
            spec.check(options or {})
    return specs


def needed_fields(specs: Sequence[TaggerSpec]) -> tuple[str, ...]:
    fields = ["id", "text", "source"]
    for spec in specs:
        fields += [f for f in spec.needs if f not in fields]
    return tuple(fields)


# ---------------------------------------------------------------------------------------------- per-file unit
@dataclass(frozen=True)
class OutputFile:
    """One attribute file written for an input file: its path and the taggers (with key prefixes) in it."""

    path: str
    taggers: tuple[tuple[str, str], ...]  # (tagger name, "<exp>__<tagger>" key prefix)


@dataclass(frozen=True)
class TagUnit:
    """Tag one document file; picklable, run by :func:`dolma_sql.runtime.run_units`."""

    source: str
    outputs: tuple[OutputFile, ...]
    tagger_modules: tuple[str, ...] = ()
    seed: int = 0
    fingerprint: str = ""
    max_documents: int | None = None
    options: tuple[tuple[str, str], ...] = ()


def marker_path(output_path: str) -> str:
    """Where the completion marker of ``output_path`` lives: ``<dir>/.dolma-sql/<file>.done``."""
    directory, name = os.path.split(output_path)
    return os.path.join(directory, ".dolma-sql", name + ".done")


def unit_fingerprint(unit: TagUnit) -> str:
    """What a marker records: the taggers, keys and seed, so a changed request is not skipped."""
    description = {"outputs": [[o.path, list(o.taggers)] for o in unit.outputs], "seed": unit.seed, "options": list(unit.options)}
    return hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()


def unit_is_done(unit: TagUnit) -> bool:
    for output in unit.outputs:
        marker = marker_path(output.path)
        if not (os.path.exists(output.path) and os.path.exists(marker)):
            return False
        with open(marker, encoding="utf-8") as handle:
            if json.load(handle).get("fingerprint") != unit.fingerprint:
                return False
    return True


def tag_file(unit: TagUnit) -> dict[str, float]:
    """Read ``unit.source`` once, run every tagger per batch, write each attribute file atomically."""
    from contextlib import ExitStack

    from dolma_sql.runtime.tuning import keep_freed_memory
    from dolma_sql.storage import output
    from dolma_sql.formats.documents import iter_document_batches

    keep_freed_memory()
    if unit.tagger_modules:
        import_tagger_modules(unit.tagger_modules)
    names = list(dict.fromkeys(name for output in unit.outputs for name, _ in output.taggers))
    specs = {name: get_tagger(name) for name in names}
    fields = needed_fields(list(specs.values()))
    documents = 0
    with ExitStack() as stack:
        writers = [stack.enter_context(output(output.path)) for output in unit.outputs]
        for document_batch in iter_document_batches(unit.source, fields=fields, required=("id", "text")):
            table = document_batch.table
            if unit.max_documents is not None:
                table = table.slice(0, max(0, unit.max_documents - documents))
            if not table.num_rows:
                break
            batch = TagBatch(table, seed=unit.seed, options=dict(unit.options))
            try:
                results = {name: run_tagger(spec, batch) for name, spec in specs.items()}
            except DolmaSqlError:
                raise
            except Exception as error:
                raise InputError(
                    f"tagging failed in lines {document_batch.first_line}-{document_batch.first_line + len(batch) - 1}: {error!r}",
                    path=unit.source,
                ) from error
            ids, sources = batch.column("id"), batch.column("source")
            for output, writer in zip(unit.outputs, writers):
                keyed = [k for name, prefix in output.taggers for k in keyed_output(prefix, specs[name], results[name])]
                writer.write(encode_rows(ids, encode_attribute_fields(len(batch), keyed), sources))
            documents += len(batch)
    for output in unit.outputs:
        marker = marker_path(output.path)
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, "w", encoding="utf-8") as handle:
            json.dump({"source": unit.source, "fingerprint": unit.fingerprint, "documents": documents}, handle)
    return {"documents": documents, "files": 1}


# ---------------------------------------------------------------------------------------------- DuckDB
def tag_texts(name: str, texts: pa.Array, seed: int = 0, options: dict | None = None, **columns: pa.Array) -> pa.Array:
    """Run tagger ``name`` on Arrow ``texts`` and return each row's ``{type: [[start, end, score], …]}`` as JSON text."""
    spec = get_tagger(name)
    table = pa.table({"text": texts.cast(pa.large_string()), **columns})
    output = run_tagger(spec, TagBatch(table, seed=seed, options=options or {}))
    return encode_attribute_fields(len(table), keyed_output("", spec, output)).cast(pa.string())


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
    functions (``gopher_v1(text)->'$.word_count[0][2]'``). Taggers that need document fields
    beyond the text (``metadata``) take them as further VARCHAR arguments in ``needs`` order.
    Names with characters DuckDB identifiers cannot hold are registered with dolma's ``_`` sanitising.
    """
    import duckdb

    registered = []
    specs = [get_tagger(n) for n in names] if names is not None else list(registry().values())
    for spec in specs:
        extra = [f for f in spec.needs if f != "text"]

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
