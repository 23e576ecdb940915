"""Upstream dolma 1.2.1's taggers that dolma-sql does not have, and why: said instead of "did you mean"."""

from __future__ import annotations

UPSTREAM_ONLY: dict[str, str] = {
    "code_composition": "it needs a fastText model that upstream downloads from the Hugging Face hub "
    "(techarb/code-prose-composition), and dolma-sql downloads nothing at run time",
    "pii_presidio_v1": "it needs Microsoft Presidio and a spaCy language model that is installed from outside PyPI "
    "(python -m spacy download); use pii_regex_v1 / pii_regex_v2 / pii_regex_with_counts_fast_v2",
}
"""Tagger name -> why dolma-sql lacks it."""


def upstream_only_reason(name: str) -> str | None:
    """Why upstream's tagger ``name`` is not available in dolma-sql (``None`` if upstream has no such tagger)."""
    return UPSTREAM_ONLY.get(name)
