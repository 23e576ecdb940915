"""The tagger registry: the :func:`tagger` decorator, lookup by name, and the start-up checks.

A tagger is a pure function over one :class:`~dolma_sql.tagger.batch.TagBatch` that returns, for
each span type it emits, a :class:`~dolma_sql.formats.attributes.Spans` table (offsets in code
points, rows ascending).
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import pkgutil
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from dolma_sql.errors import ConfigError
from dolma_sql.formats.attributes import Spans
from dolma_sql.tagger.batch import TagBatch
from dolma_sql.tagger.builtins import BUILTIN_TAGGERS
from dolma_sql.tagger.catalog import upstream_only_reason

TaggerOutput = dict[str, Spans]
"""Span type -> spans, in the order the types appear in the attribute row."""

TaggerFn = Callable[[TagBatch], TaggerOutput]

KeyedSpans = tuple[str, Spans, bool]
"""``(attribute key, spans, written even when empty)``: what the attribute codec encodes."""


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

    def run(self, batch: TagBatch) -> TaggerOutput:
        """Run the tagger on a batch and check what it returned (a plugin bug should say which tagger)."""
        output = self.fn(batch)
        for key, spans in output.items():
            if not isinstance(spans, Spans):
                raise TypeError(f"tagger {self.name!r} returned {type(spans).__name__} for {key!r}; expected Spans")
            if len(spans) and (spans.rows[0] < 0 or spans.rows[-1] >= len(batch) or np.any(np.diff(spans.rows) < 0)):
                raise ValueError(f"tagger {self.name!r}: rows of {key!r} must be ascending and within the batch")
        return output

    def keyed(self, prefix: str, output: TaggerOutput) -> list[KeyedSpans]:
        """The attribute keys ``<prefix>__<type>`` (bare types without a prefix): defaults first, then the other types."""

        def key(span_type: str) -> str:
            return f"{prefix}__{make_variable_name(span_type)}" if prefix else make_variable_name(span_type)

        keyed = [(key(t), output.get(t, Spans.empty()), True) for t in self.defaults]
        keyed += [(key(t), s, False) for t, s in output.items() if t and t not in self.defaults]
        return _one_per_key(keyed)


def _one_per_key(keyed: list[KeyedSpans]) -> list[KeyedSpans]:
    """Types that sanitise to one key (``a-b`` and ``a.b``) make one key, as in dolma, where a later type's spans replace
    an earlier one's in a document that has both; the key keeps the first one's place."""
    merged: dict[str, tuple[Spans, bool]] = {}
    for key, spans, always in keyed:
        if key in merged:
            earlier, was_always = merged[key]
            spans, always = Spans.concat([earlier.take(~np.isin(earlier.rows, spans.rows)), spans]), was_always or always
        merged[key] = spans, always
    return [(key, spans, always) for key, (spans, always) in merged.items()]


_REGISTRY: dict[str, TaggerSpec] = {}

_BUILTIN_MODULES = {name: f"dolma_sql.udfs.{module}" for module, names in BUILTIN_TAGGERS.items() for name in names}
"""Built-in tagger name -> the module that registers it."""


@cache
def load_builtin_taggers() -> None:
    """Import every module of :mod:`dolma_sql.udfs` (each registers its family), once per process."""
    import dolma_sql.udfs

    for module in pkgutil.iter_modules(dolma_sql.udfs.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"dolma_sql.udfs.{module.name}")


def _load(name: str) -> None:
    """Register the tagger ``name``: import its built-in module, or every one for a name no built-in tagger has."""
    if name not in _REGISTRY:
        if name in _BUILTIN_MODULES:
            importlib.import_module(_BUILTIN_MODULES[name])
        else:
            load_builtin_taggers()


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
    configured model and list paths, also available to the tagger as ``batch.options``).
    ``vectorized=False`` marks taggers that do per-document work (a library called per text).
    """

    def register(fn: TaggerFn) -> TaggerFn:
        register_spec(TaggerSpec(name, fn, tuple(types), tuple(defaults), tuple(needs), requires, check, vectorized))
        return fn

    return register


def register_spec(spec: TaggerSpec) -> None:
    """Register ``spec`` under its name; the same definition imported again (a module re-run) replaces itself."""
    existing = _REGISTRY.get(spec.name)
    if existing is not None and _definition(existing) != _definition(spec):
        raise ValueError(f"tagger {spec.name!r} is already registered by {existing.module}")
    builtin = _BUILTIN_MODULES.get(spec.name)
    if builtin is not None and spec.module != builtin:  # whether or not its module is imported yet
        raise ValueError(f"tagger {spec.name!r} is already registered by {builtin}")
    _REGISTRY[spec.name] = spec


def _definition(spec: TaggerSpec) -> str:
    defined = getattr(spec, "tagger_class", None) or spec.fn
    return defined.__qualname__


def known_tagger(name: str) -> bool:
    """Whether ``name`` is registered (built-in taggers included)."""
    return name in _REGISTRY or name in _BUILTIN_MODULES


def registry() -> dict[str, TaggerSpec]:
    """Every tagger: the built-in ones and those of the plugin modules imported so far, by name."""
    load_builtin_taggers()
    return dict(sorted(_REGISTRY.items()))


def get_tagger(name: str) -> TaggerSpec:
    """The registered tagger ``name``; an unknown name is a ConfigError suggesting the nearest names."""
    _load(name)
    if name in _REGISTRY:
        return _REGISTRY[name]
    reason = upstream_only_reason(name)
    if reason is not None:
        raise ConfigError(f"{name!r} is an upstream dolma tagger that dolma-sql does not have: {reason}", path="taggers",
                          hint="run `dolma-sql list` to see every tagger, or run it with upstream dolma")
    close = difflib.get_close_matches(name, list(_REGISTRY), n=5, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else "run `dolma-sql list` to see every tagger"
    raise ConfigError(f"unknown tagger {name!r}", path="taggers", hint=hint)


def make_variable_name(name: str) -> str:
    """dolma's key sanitising: every character outside ``[A-Za-z0-9_]`` becomes ``_``."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


def require_modules(what: str, modules: Sequence[str], hint: str) -> None:
    """A ConfigError naming which of ``modules`` ``what`` needs and are not installed (found without importing them)."""
    missing = [module for module in modules if importlib.util.find_spec(module) is None]
    if missing:
        raise ConfigError(f"{what} cannot run without {' and '.join(missing)}", path="taggers", hint=hint)


def reads_list_files(option: str) -> Callable[[Callable[[dict], None]], Callable[[dict], None]]:
    """Mark a tagger's check as reading the list files of ``models.<option>``. A run has one such list, where upstream
    gives each of these taggers a list of its own, so :func:`check_taggers` refuses two of them in one run."""

    def mark(check: Callable[[dict], None]) -> Callable[[dict], None]:
        check.list_option = option  # type: ignore[attr-defined]
        return check

    return mark


def check_taggers(names: Sequence[str], options: dict | None = None) -> list[TaggerSpec]:
    """Resolve names and run each tagger's dependency/model check before any work starts."""
    specs = [get_tagger(name) for name in names]
    readers: dict[str, list[str]] = {}
    for spec in specs:
        if spec.check is not None:
            spec.check(options or {})
            readers.setdefault(getattr(spec.check, "list_option", ""), []).append(spec.name)
    for option, sharing in readers.items():
        if option and len(sharing) > 1:
            raise ConfigError(
                f"{', '.join(sharing)} would all read the one list of --models.{option}, where upstream gives each its own list",
                path="taggers",
                hint=f"tag with one of them per run, each with its own --models.{option} and --experiment",
            )
    return specs


def needed_fields(specs: Sequence[TaggerSpec]) -> tuple[str, ...]:
    """The document fields the taggers read: ``id``, ``text``, ``source`` and what each ``needs``."""
    fields = ["id", "text", "source"]
    for spec in specs:
        fields += [f for f in spec.needs if f not in fields]
    return tuple(fields)
