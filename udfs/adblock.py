"""Adblock Plus rule-engine taggers (dolma ``taggers/url.py``): ``oisd_*`` and ``brave_*``.

``url`` = 1.0 when Brave's adblock engine would block a request for ``metadata.url`` (cleaned to
``host[:port]/path`` as the URL taggers clean it, ``http://`` added when it has no scheme, no
source page, no request type). Upstream downloads fixed list snapshots and runs the ``adblock``
Rust crate 0.8 through its own binding; here the lists are local files (``--models.url_blocklist
PATH...``, plain or ``.gz``, as the URL taggers take them) and the engine is the ``adblock`` wheel
(the same crate, 0.5). The engine is called once per document.
"""

from __future__ import annotations

import gzip
import os
from functools import cache

import numpy as np

from dolma_sql.tagger.registry import reads_list_files
from dolma_sql.tagging import Spans, TagBatch, require_modules, tagger
from dolma_sql.udfs.url import clean_url, require_blocklist

ADBLOCK_LISTS = ["oisd_small_abp_v1", "oisd_big_abp_v1", "oisd_nsfw_abp_v1", "brave_core_abp_v1", "brave_nsfw_abp_v1"]
"""Upstream's names: they differ only in the lists they download."""


@reads_list_files("url_blocklist")
def require_adblock(options: dict) -> None:
    require_modules("the Adblock Plus taggers", ["adblock"], hint="pip install adblock")
    require_blocklist(options)


def _lines(path: str) -> list[str]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
        return [line.strip() for line in handle if not line.startswith("!")]


@cache
def load_engine(paths: str):
    """One engine over the rules of every list (``!`` comment lines skipped, duplicates once, sorted as upstream)."""
    import adblock

    rules = sorted({rule for path in paths.split(os.pathsep) for rule in _lines(path)})
    filters = adblock.FilterSet()
    filters.add_filters(rules)
    return adblock.Engine(filter_set=filters, optimize=True)


def _with_scheme(url: str) -> str:
    import urllib3.util
    from urllib3.exceptions import LocationParseError

    try:
        scheme = urllib3.util.parse_url(url).scheme
    except LocationParseError:
        scheme = None
    return url if scheme is not None else f"http://{url}"


def _blocked(engine, url: str | None) -> bool:
    return any(engine.check_network_urls(_with_scheme(cleaned), "", "").matched for cleaned in clean_url(url or ""))


def _adblock_tagger(batch: TagBatch):
    """The engine blocks a request for ``metadata.url``."""
    engine = load_engine(batch.options["url_blocklist"])
    blocked = np.array([_blocked(engine, url) for url in batch.metadata_field("url").to_list()], dtype=bool)
    return {"url": Spans.document(batch.lengths, 1.0, where=blocked)}


for _name in ADBLOCK_LISTS:
    tagger(_name, types=["url"], needs=["metadata"], requires="adblock, urllib3", check=require_adblock, vectorized=False)(_adblock_tagger)
