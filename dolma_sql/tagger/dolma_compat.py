"""The part of upstream dolma's Python API that tagger plugins use, so that they run unchanged.

A plugin written for dolma imports ``add_tagger``, ``BaseTagger`` (or ``BaseTaggerWithMetadata``),
``Document``, ``DocResult`` and ``Span`` from ``dolma`` / ``dolma.core.*`` and implements
``predict(self, doc) -> DocResult``. When upstream dolma is not installed, those imports resolve
to this module (:mod:`.upstream_plugins` maps the module names); ``add_tagger`` registers the
class as a dolma-sql tagger that calls ``tag(row)`` once per document, as upstream's tagger
runtime does. The names and behaviour follow dolma 1.2.1's public API; this is an independent
implementation, not upstream's code.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, Optional

import msgspec

TAGGER_SCORE_PRECISION = 5
"""Scores are rounded to 5 decimals when a tagger's spans are grouped."""

TaggerOutputValueType = tuple[int, int, float]
TaggerOutputType = list[TaggerOutputValueType]
TaggerOutputDictType = dict[str, TaggerOutputType]


# ------------------------------------------------------------------ documents as a tagger sees them
class InputSpec(msgspec.Struct):
    """One document line as decoded for taggers (fields beyond these are not read)."""

    id: str
    text: str
    source: str = ""
    created: str = ""
    added: str = ""
    version: Optional[str] = None


class InputSpecWithMetadata(InputSpec):
    metadata: Optional[dict[str, Any]] = None


class InputSpecWithMetadataAndAttributes(InputSpecWithMetadata):
    attributes: Optional[dict[str, list[tuple[int, int, float]]]] = None


class OutputSpec(msgspec.Struct):
    id: str
    attributes: dict[str, list[TaggerOutputValueType]]
    source: Optional[str] = None


class Document:
    __slots__ = ("source", "version", "id", "text")

    def __init__(self, source: str, id: str, text: str, version: Optional[str] = None) -> None:
        self.source, self.version, self.id, self.text = source, version, id, text

    @classmethod
    def from_spec(cls, spec: InputSpec) -> Document:
        return cls(source=spec.source, version=spec.version, id=spec.id, text=spec.text)

    def to_spec(self) -> InputSpec:
        return InputSpec(source=self.source, version=self.version, id=self.id, text=self.text)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Document:
        return cls(source=d["source"], version=d["version"], id=d["id"], text=d["text"])

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "version": self.version, "id": self.id, "text": self.text}

    def __str__(self) -> str:
        fields = ",".join(f"{key}:{value!r}" for key, value in self.to_json().items())
        return f"{type(self).__name__}({fields})"


class DocumentWithMetadata(Document):
    __slots__ = ("metadata",)

    def __init__(self, *args, metadata: Optional[dict[str, Any]] = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.metadata = metadata or {}

    @classmethod
    def from_spec(cls, spec: InputSpecWithMetadata) -> DocumentWithMetadata:
        return cls(source=spec.source, version=spec.version, id=spec.id, text=spec.text, metadata=spec.metadata)

    def to_spec(self) -> InputSpecWithMetadata:
        return InputSpecWithMetadata(source=self.source, version=self.version, id=self.id, text=self.text, metadata=self.metadata)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DocumentWithMetadata:
        return cls(source=d["source"], version=d["version"], id=d["id"], text=d["text"], metadata=d["metadata"])

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "metadata": self.metadata}


class Span:
    """``[start, end)`` of a document's text (code points) with a type and a score."""

    __slots__ = ("start", "end", "type", "score", "experiment", "tagger")

    def __init__(self, start: int, end: int, type: str, score: float = 1.0, experiment: Optional[str] = None, tagger: Optional[str] = None):
        self.start, self.end, self.type, self.score = start, end, type, float(score)
        self.experiment, self.tagger = experiment, tagger

    def mention(self, text: str, window: int = 0) -> str:
        return text[max(0, self.start - window) : min(len(text), self.end + window)]

    def select(self, doc: Document) -> str:
        return doc.text[self.start : self.end]

    def __len__(self) -> int:
        return self.end - self.start

    def to_json(self, text: Optional[str] = None, window: int = 0) -> dict:
        value = {"start": self.start, "end": self.end, "type": self.type, "score": self.score}
        if text is not None:
            value["mention"] = self.mention(text, window)
        return value

    @classmethod
    def from_json(cls, d: dict) -> Span:
        return cls(start=d["start"], end=d["end"], type=d["type"], score=d["score"])

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, type(self)) and (self.start, self.end, self.type, self.score) == (other.start, other.end, other.type, other.score)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(start={self.start},end={self.end},type={self.type!r},score={self.score:.5f})"


class DocResult:
    __slots__ = ("doc", "spans")

    def __init__(self, doc: Document, spans: list[Span]) -> None:
        self.doc, self.spans = doc, spans

    def to_json(self, with_doc: bool = False, window: int = 0) -> dict[str, Any]:
        value: dict[str, Any] = {"spans": [span.to_json(text=self.doc.text, window=window) for span in self.spans]}
        if with_doc:
            value["doc"] = self.doc.to_json()
        return value

    def __repr__(self) -> str:
        return f"{type(self).__name__}(doc={self.doc},spans=[{','.join(map(repr, self.spans))}])"


class TextSlice:
    """``doc[start:end]`` of a text (what the splitting helpers return)."""

    __slots__ = ("doc", "start", "end")

    def __init__(self, doc: str, start: int, end: int):
        self.doc, self.start, self.end = doc, start, end

    @property
    def text(self) -> str:
        return self.doc[self.start : self.end]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(text={self.text!r},start={self.start},end={self.end})"


# ------------------------------------------------------------------ taggers
class BaseTagger:
    """A per-document tagger: implement :meth:`predict`; ``tag`` is what the runtime calls."""

    FIELDS: list[str] = ["text"]

    @property
    def defaults(self) -> list[str]:
        """Span types written (as ``[]``) even when the document has none."""
        return []

    @abstractmethod
    def predict(self, doc: Document) -> DocResult:
        raise NotImplementedError

    def group_output(self, doc_result: DocResult) -> TaggerOutputDictType:
        grouped: TaggerOutputDictType = {name: [] for name in self.defaults}
        for span in doc_result.spans:
            grouped.setdefault(span.type, []).append((span.start, span.end, round(float(span.score), TAGGER_SCORE_PRECISION)))
        return grouped

    def tag(self, row: InputSpec) -> TaggerOutputDictType:
        return self.group_output(self.predict(Document.from_spec(row)))


class BaseTaggerWithMetadata(BaseTagger):
    """A tagger that reads ``doc.metadata`` too."""

    @abstractmethod
    def predict(self, doc: DocumentWithMetadata) -> DocResult:  # type: ignore[override]
        raise NotImplementedError

    def tag(self, row: InputSpecWithMetadata) -> TaggerOutputDictType:  # type: ignore[override]
        return self.group_output(self.predict(DocumentWithMetadata.from_spec(row)))


class TaggerRegistry:
    """Tagger classes by name; :meth:`add` also makes each a dolma-sql tagger (see :mod:`.upstream_plugins`)."""

    _classes: dict[str, type] = {}
    on_add: Callable[[str, type], None] | None = None

    @classmethod
    def add(cls, name: str) -> Callable[[type], type]:
        def register(tagger_class: type) -> type:
            existing = cls._classes.get(name)
            if existing is not None and existing is not tagger_class and tagger_class.__module__ != "__main__":
                raise ValueError(f"Tagger {name} already exists")
            cls._classes[name] = tagger_class
            if cls.on_add is not None:
                cls.on_add(name, tagger_class)
            return tagger_class

        return register

    @classmethod
    def items(cls):
        yield from sorted(cls._classes.items())

    @classmethod
    def has(cls, name: str) -> bool:
        return name in cls._classes

    @classmethod
    def get(cls, name: str) -> type:
        if name not in cls._classes:
            raise ValueError(f"Unknown tagger {name}; available taggers: {', '.join(sorted(cls._classes))}")
        return cls._classes[name]

    @classmethod
    def remove(cls, name: str) -> bool:
        return cls._classes.pop(name, None) is not None


add_tagger = TaggerRegistry.add


# ------------------------------------------------------------------ helpers plugins import from dolma.core.utils
def make_variable_name(name: str, remove_multiple_underscores: bool = False) -> str:
    name = re.sub(r"[^a-zA-Z0-9_]", "_", name)
    if remove_multiple_underscores:
        name = re.sub(r"__+", "_", name)
    if name[0].isdigit() and name[0].isascii():
        raise ValueError(f"Invalid variable name {name}")
    return name


_PARAGRAPH = re.compile(r"[^\n]*\n|[^\n]+$")


def split_paragraphs(text: str, remove_empty: bool = True) -> list[TextSlice]:
    """Lines with their newline (the last one may lack it); whitespace-only ones dropped unless ``remove_empty=False``."""
    slices = [TextSlice(text, match.start(), match.end()) for match in _PARAGRAPH.finditer(text)]
    return [piece for piece in slices if piece.text.strip()] if remove_empty else slices


def split_words(text: str, remove_empty: bool = True) -> list[TextSlice]:
    """Unicode (UAX #29) words, by uniseg; whitespace-only ones dropped unless ``remove_empty=False``."""
    from uniseg.wordbreak import words

    slices, offset = [], 0
    for word in words(text):
        if word.strip() or not remove_empty:
            slices.append(TextSlice(text, offset, offset + len(word)))
        offset += len(word)
    return slices


def split_sentences(text: str, remove_empty: bool = True) -> list[TextSlice]:
    """Sentences by blingfire (upstream falls back to nltk's punkt without it; dolma-sql requires blingfire)."""
    if not remove_empty:
        raise NotImplementedError("remove_empty=False is not implemented yet")
    if not text:
        return []
    import blingfire

    _, offsets = blingfire.text_to_sentences_and_offsets(text)
    return [TextSlice(text, start, end) for start, end in offsets]
