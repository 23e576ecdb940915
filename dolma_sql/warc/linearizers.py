"""HTML-to-text extractors, with the settings upstream's ``dolma warc`` gives them.

resiliparse: main content, block formatting preserved, list bullets, comment sections kept; no
alt texts, links, form fields or noscript. trafilatura: plain text without comments, links or
tables, its caches flushed every 10,000 pages (trafilatura's advice against their growth).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from dolma_sql.errors import ConfigError, install_hint

Linearizer = Callable[[str], str]

RESILIPARSE_SETTINGS = {"preserve_formatting": True, "main_content": True, "list_bullets": True, "alt_texts": False, "links": False,
                        "form_fields": False, "noscript": False, "comments": True, "skip_elements": None}
TRAFILATURA_SETTINGS = {"output_format": "txt", "include_comments": False, "include_links": False, "include_tables": False, "no_fallback": False,
                        "favor_precision": False, "favor_recall": False, "include_formatting": False}
TRAFILATURA_FLUSH_AFTER = 10_000


def resiliparse_linearizer() -> Linearizer:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    def linearize(html: str) -> str:
        return extract_plain_text(HTMLTree.parse(html), **RESILIPARSE_SETTINGS)

    return linearize


def trafilatura_linearizer() -> Linearizer:
    import trafilatura
    import trafilatura.meta

    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    extracted = 0

    def linearize(html: str) -> str:
        nonlocal extracted
        text = trafilatura.extract(filecontent=html, **TRAFILATURA_SETTINGS)
        if extracted >= TRAFILATURA_FLUSH_AFTER:
            trafilatura.meta.reset_caches()
            extracted = 0
        extracted += 1
        return text or ""

    return linearize


FACTORIES: dict[str, Callable[[], Linearizer]] = {"resiliparse": resiliparse_linearizer, "trafilatura": trafilatura_linearizer}


def make_linearizer(name: str) -> Linearizer:
    """The extractor ``name``; a missing library is a ConfigError saying what to install."""
    try:
        return FACTORIES[name]()
    except ImportError as error:
        raise ConfigError(f"the {name} linearizer cannot run: {error}", path="linearizer", hint=install_hint("warc")) from None


REQUIRED_MODULES = {"resiliparse": ("fastwarc", "resiliparse"), "trafilatura": ("fastwarc", "trafilatura")}
SHARED_MODULES = ("charset_normalizer", "w3lib", "url_normalize", "dateparser")


def require_linearizer(name: str) -> None:
    """A ConfigError naming the packages ``warc`` with linearizer ``name`` needs and are not installed (found without importing them)."""
    import importlib.util

    missing = [module for module in (*REQUIRED_MODULES[name], *SHARED_MODULES) if importlib.util.find_spec(module) is None]
    if missing:
        raise ConfigError(f"dolma-sql warc --linearizer {name} cannot run without {', '.join(missing)}", path="linearizer", hint=install_hint("warc"))
