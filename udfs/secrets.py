"""Secrets in code (dolma ``code_secrets_v1``): detect-secrets' line plugins and filters, at their default settings.

Each document is scanned line by line as upstream scans it: as the lines of a YAML file, so that
detect-secrets applies its YAML keyword patterns. detect-secrets has no batch API, so this tagger
is per document; the document score (secrets per word) is computed over the batch.
"""

from __future__ import annotations

import numpy as np

from dolma_sql.errors import install_hint
from dolma_sql.tagging import Spans, TagBatch, require_modules, tagger
from dolma_sql.udfs.text import words_per_text

SCAN_AS = "code_str.yml"
"""The file name detect-secrets is told each document has (its extension selects the YAML patterns)."""

SPAN_PREFIX = "SECRET_"


def require_detect_secrets(options: dict) -> None:
    require_modules("code_secrets_v1", ["detect_secrets"], hint=install_hint("code", "detect-secrets"))


def document_secrets(text: str) -> list[tuple[str, int, int]]:
    """``(type, start, end)`` of each distinct secret (value and type), ordered by line, then secret hash, then type.

    A secret found on several lines counts once, at its first line. Its offset is where the first
    copy of that line's text occurs in the document, plus the secret's place in the line.
    """
    from detect_secrets.core.scan import _process_line_based_plugins  # the line scan without reading a file

    lines = text.splitlines()
    distinct: dict = {}
    for secret in _process_line_based_plugins(list(enumerate(lines, start=1)), filename=SCAN_AS):
        distinct.setdefault(secret, secret)  # equal = same file, value hash and type
    found = []
    for secret in sorted(distinct, key=lambda s: (s.line_number, s.secret_hash, s.type)):
        line = lines[secret.line_number - 1]
        value = secret.secret_value or ""
        start = text.find(line) + line.find(value)
        found.append((SPAN_PREFIX + secret.type.replace(" ", "_"), start, start + len(value)))
    return found


@tagger("code_secrets_v1", types=[f"{SPAN_PREFIX}<type>", "doc"], requires="detect-secrets", check=require_detect_secrets, vectorized=False)
def code_secrets_v1(batch: TagBatch):
    from detect_secrets.settings import default_settings

    by_type: dict[str, list[tuple[int, int, int]]] = {}
    counts = np.zeros(len(batch), dtype=np.float64)
    with default_settings():
        for row, text in enumerate(batch.text.to_pylist()):
            for kind, start, end in document_secrets(text):
                by_type.setdefault(kind, []).append((row, start, end))
                counts[row] += 1
    words = words_per_text(batch.series)
    score = np.where(words > 0, counts / np.maximum(words, 1), -1.0)
    spans = {kind: Spans(*map(list, zip(*items)), np.ones(len(items))) for kind, items in by_type.items()}
    return {**spans, "doc": Spans.document(batch.lengths, score)}
