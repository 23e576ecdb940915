"""Running tagger plugins written for upstream dolma: ``import dolma`` without dolma, and per-document taggers.

While tagger modules are imported (:func:`upstream_imports`), a finder placed *last* on
``sys.meta_path`` answers ``dolma``, ``dolma.core`` and ``dolma.core.{data_types,taggers,registry,utils}``
with :mod:`.dolma_compat`; an installed upstream dolma is found first and is never shadowed. Each
class registered with ``add_tagger`` becomes a dolma-sql tagger that calls the class's ``tag(row)``
on each document of a batch (per document by nature) and lays its spans out as Arrow spans. With
upstream dolma installed, plugin classes registered in its registry are adopted the same way.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import msgspec

from dolma_sql.formats.attributes import Spans
from dolma_sql.tagger import dolma_compat
from dolma_sql.tagger.batch import TagBatch
from dolma_sql.tagger.registry import KeyedSpans, TaggerOutput, TaggerSpec, known_tagger, register_spec

_DATA_TYPES = ["InputSpec", "InputSpecWithMetadata", "InputSpecWithMetadataAndAttributes", "OutputSpec", "Document",
               "DocumentWithMetadata", "DocResult", "Span", "TextSlice", "TaggerOutputValueType", "TaggerOutputType", "TaggerOutputDictType"]
EXPORTS: dict[str, list[str]] = {
    "dolma": ["add_tagger", "BaseTagger", "TaggerRegistry"],
    "dolma.core": ["BaseTagger", "DocResult", "Document", "Span", "TaggerRegistry"],
    "dolma.core.data_types": _DATA_TYPES,
    "dolma.core.taggers": ["BaseTagger", "BaseTaggerWithMetadata", "TAGGER_SCORE_PRECISION", *_DATA_TYPES],
    "dolma.core.registry": ["TaggerRegistry"],
    "dolma.core.utils": ["make_variable_name", "split_paragraphs", "split_words", "split_sentences", "TextSlice"],
}
"""The modules a plugin may import from ``dolma`` and the names each offers."""
PACKAGES = {"dolma", "dolma.core"}


class _CompatFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in EXPORTS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname in PACKAGES)
        if fullname.startswith("dolma."):
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: dolma-sql runs plugins written for dolma without it, and offers "
                f"{', '.join(sorted(EXPORTS))}; for upstream's own modules install dolma (pip install dolma)",
                name=fullname,
            )
        return None

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        module.__doc__ = f"dolma-sql's stand-in for upstream's {module.__name__} (see dolma_sql.tagger.dolma_compat)"
        if module.__name__ in PACKAGES:
            module.__path__ = []
        for name in EXPORTS[module.__name__]:
            setattr(module, name, getattr(dolma_compat, name))
        module.__all__ = list(EXPORTS[module.__name__])


_FINDER = _CompatFinder()


@contextmanager
def upstream_imports() -> Iterator[None]:
    """Within: ``import dolma…`` resolves to the compatibility module when upstream dolma is not installed."""
    if _FINDER in sys.meta_path:
        yield
        return
    sys.meta_path.append(_FINDER)
    try:
        yield
    finally:
        sys.meta_path.remove(_FINDER)
        adopt_upstream_registry()


# ------------------------------------------------------------------ per-document taggers as batch taggers
@dataclass(frozen=True)
class UpstreamTaggerSpec(TaggerSpec):
    """A dolma-style tagger class run per document: one instance per document file, as upstream makes one per file."""

    tagger_class: type | None = None
    _instance: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def module(self) -> str:
        return self.tagger_class.__module__

    def instance(self, path: str):
        if self._instance.get("path") != path or "tagger" not in self._instance:
            self._instance.clear()
            self._instance.update(path=path, tagger=self.tagger_class())
        return self._instance["tagger"]

    def run(self, batch: TagBatch) -> TaggerOutput:
        tagger = self.instance(batch.path)
        collected: dict[str, tuple[list, list, list, list]] = {}
        for row, document in enumerate(_input_specs(batch, "metadata" in self.needs)):
            for span_type, spans in tagger.tag(document).items():
                rows, starts, ends, scores = collected.setdefault(span_type, ([], [], [], []))
                for start, end, score in spans:
                    rows.append(row)
                    starts.append(start)
                    ends.append(end)
                    scores.append(score)
        return {span_type: Spans(*columns) for span_type, columns in collected.items()}

    def keyed(self, prefix: str, output: TaggerOutput) -> list[KeyedSpans]:
        defaults = tuple(self._instance["tagger"].defaults) if "tagger" in self._instance else ()
        return TaggerSpec.keyed(_with_defaults(self, defaults), prefix, output)


def _with_defaults(spec: TaggerSpec, defaults: tuple[str, ...]) -> TaggerSpec:
    return TaggerSpec(spec.name, spec.fn, spec.types, defaults, spec.needs)


def _input_specs(batch: TagBatch, with_metadata: bool) -> Iterator[dolma_compat.InputSpec]:
    """Each document of the batch as upstream's decoder gives it to ``tag`` (absent strings are ``""``)."""
    present = set(batch.table.column_names)  # SQL functions pass the text (and metadata) only
    columns = {name: batch.column(name).to_pylist() if name in present else [None] * len(batch)
               for name in ("id", "text", "source", "created", "added", "version")}
    metadata = (batch.column("metadata").to_pylist() if "metadata" in present else [None] * len(batch)) if with_metadata else None
    for index in range(len(batch)):
        fields = {name: values[index] for name, values in columns.items()}
        for name in ("source", "created", "added"):
            fields[name] = fields[name] or ""
        if metadata is None:
            yield dolma_compat.InputSpec(**fields)
        else:
            text = metadata[index]
            yield dolma_compat.InputSpecWithMetadata(**fields, metadata=None if text is None else msgspec.json.decode(text))


def _not_called(batch: TagBatch) -> TaggerOutput:  # UpstreamTaggerSpec.run replaces the function
    raise NotImplementedError


def register_upstream_class(name: str, tagger_class: type) -> None:
    """Make ``tagger_class`` (a dolma-style tagger) the dolma-sql tagger ``name``."""
    with_metadata = any(base.__name__ == "BaseTaggerWithMetadata" for base in tagger_class.__mro__)
    needs = ("created", "added", "version", "metadata") if with_metadata else ("created", "added", "version")
    register_spec(UpstreamTaggerSpec(name, _not_called, ("<per document>",), (), needs, vectorized=False, tagger_class=tagger_class))


dolma_compat.TaggerRegistry.on_add = register_upstream_class


def adopt_upstream_registry() -> None:
    """Plugin classes registered in an installed upstream dolma's registry become dolma-sql taggers too."""
    upstream = sys.modules.get("dolma.core.registry")
    if upstream is None or getattr(upstream, "TaggerRegistry", None) is dolma_compat.TaggerRegistry:
        return
    for name, tagger_class in upstream.TaggerRegistry.items():
        if not tagger_class.__module__.startswith("dolma.") and not known_tagger(name):
            register_upstream_class(name, tagger_class)
