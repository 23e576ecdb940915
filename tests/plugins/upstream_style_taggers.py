"""Tagger plugins written for upstream dolma, as its users write them (tests/test_tag_plugins_upstream.py runs them unchanged)."""

from typing import List

from dolma import BaseTagger, add_tagger
from dolma.core.data_types import DocResult, Document, DocumentWithMetadata, Span
from dolma.core.taggers import BaseTaggerWithMetadata
from dolma.core.utils import split_paragraphs


@add_tagger("upstream_style_paragraphs_v1")
class ParagraphVowels(BaseTagger):
    """Several span types, a default type, per-paragraph spans, an empty type name and out-of-order spans."""

    @property
    def defaults(self) -> List[str]:
        return ["shouting"]

    def predict(self, doc: Document) -> DocResult:
        spans = []
        for paragraph in split_paragraphs(doc.text):
            vowels = sum(paragraph.text.lower().count(v) for v in "aeiouéà")
            spans.append(Span(start=paragraph.start, end=paragraph.end, type="vowels", score=vowels / max(1, len(paragraph.text))))
            if paragraph.text.isupper():
                spans.append(Span(start=paragraph.start, end=paragraph.end, type="shouting"))
        spans.append(Span(start=0, end=len(doc.text), type="doc-length", score=len(doc.text)))
        spans.append(Span(start=0, end=0, type="", score=3.0))  # an empty type is not written
        spans.reverse()
        return DocResult(doc=doc, spans=spans)


@add_tagger("upstream_style_metadata_v1")
class UrlAndSource(BaseTaggerWithMetadata):
    """Reads ``doc.metadata``, ``doc.source`` and ``doc.id``."""

    def predict(self, doc: DocumentWithMetadata) -> DocResult:
        url = doc.metadata.get("url") or ""
        spans = [Span(start=0, end=len(doc.text), type="has_url", score=1.0 if url else 0.0)]
        if doc.source:
            spans.append(Span(start=0, end=len(doc.text), type=f"source_{doc.source}", score=len(doc.id)))
        return DocResult(doc=doc, spans=spans)


@add_tagger("upstream_style_colliding_v1")
class CollidingTypes(BaseTagger):
    """Two span types that sanitise to one key (``len-chars`` and ``len.chars``): in a document with both, the later's
    spans are written."""

    def predict(self, doc: Document) -> DocResult:
        spans = [Span(start=0, end=len(doc.text), type="len-chars", score=len(doc.text))]
        if "a" in doc.text:
            spans.append(Span(start=0, end=1, type="len.chars", score=1.0))
        return DocResult(doc=doc, spans=spans)
