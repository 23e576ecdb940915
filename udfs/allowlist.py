"""Wikidata website allowlists (dolma ``taggers/url.py``): ``allowlist_wikidata_v1``, ``allowlist_wikidata_cleaned_v1``.

``url`` = 1.0 when the host of ``metadata.url`` (with and without ``www.``), or its last two
labels when it has four or more, is on the list. The lists are local files
(``--models.url_allowlist PATH...``, plain or ``.gz``; upstream downloads two Wikidata query
results): each line is a JSON array of ``{"url": …}`` rows, whose URLs are expanded the same way.
A row whose URL upstream cannot parse contributes what was found before it, as upstream's loader.

``allowlist_wikidata_cleaned_v1`` is meant to drop NSFW, satire, social and similar websites, but
upstream's loader never calls its filter, so it lists exactly what ``allowlist_wikidata_v1`` lists;
dolma-sql does the same. URLs are matched per document.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache

import numpy as np

from dolma_sql.errors import ConfigError
from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.url import clean_domain, open_list, parse_list_line, require_list_files


def base_domain(host: str) -> str:
    """The last two labels of a host with four or more (``a.b.example.com`` -> ``example.com``), else the host."""
    return ".".join(host.rsplit(".", 2)[1:]) if host.count(".") > 2 else host


def variants(url: str | None) -> Iterator[str]:
    for host in clean_domain(url):
        yield host
        yield base_domain(host)


def _row_entries(row: dict) -> Iterator[str]:
    for url in variants(row["url"]):
        yield from parse_list_line(url, variants, strict=True)


@cache
def load_allowlist(paths: str) -> frozenset[str]:
    entries: set[str] = set()
    for path in paths.split(os.pathsep):
        with open_list(path) as handle:
            for number, line in enumerate(handle, start=1):
                try:
                    rows = json.loads(line)
                except json.JSONDecodeError:
                    raise ConfigError(f"{path}:{number}: not a JSON array of {{\"url\": …}} rows", path="models.url_allowlist") from None
                for row in rows:
                    try:
                        for entry in _row_entries(row):
                            entries.add(entry)
                    except Exception:  # noqa: BLE001 - as upstream: the rest of that row is skipped
                        continue
    if not entries:
        raise ConfigError(f"the allowlist {paths} has no entries", path="models.url_allowlist")
    return frozenset(entries)


def require_allowlist(options: dict) -> None:
    paths = require_list_files(options, "url_allowlist", needed_by="the allowlist_wikidata taggers", kind="allowlist",
                               hint="pass --models.url_allowlist PATH... (Wikidata query results: JSON arrays of {\"url\": …} rows)")
    load_allowlist(paths)


def _listed(allowlist: frozenset[str], url: str | None) -> bool:
    return any(entry in allowlist for candidate in variants(url or "") for entry in variants(candidate))


def _allowlist_tagger(batch: TagBatch):
    allowlist = load_allowlist(batch.options["url_allowlist"])
    listed = np.array([_listed(allowlist, url) for url in batch.metadata_field("url").to_list()], dtype=bool)
    return {"url": Spans.document(batch.lengths, 1.0, where=listed)}


for _name in ("allowlist_wikidata_v1", "allowlist_wikidata_cleaned_v1"):
    tagger(_name, types=["url"], needs=["metadata"], requires="urllib3", check=require_allowlist, vectorized=False)(_allowlist_tagger)
