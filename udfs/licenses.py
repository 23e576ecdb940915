"""Creative Commons licences linked from a page's HTML (dolma ``taggers/licenses.py``): ``cc_re``, ``cc_re_fast``.

The HTML is ``metadata.html`` (dolma's ``warc --store_html_in_metadata``). Each licence link found
is a document span of type ``cc_<type>[_<version>][_<lang>]`` scored ``0.5 + 0.5 / n`` for the
n-th link (1.0, 0.75, 0.667, …). The patterns are those of DKPro C4Corpus's licence detectors, as
upstream uses them (``cc_re``: ``<a href>``/``<meta content>`` with version and language;
``cc_re_fast``: the bare licence URL). The HTML is pulled out of the metadata and pre-filtered for
``creativecommons.org`` with vectorized kernels; the regular expression then runs per page.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from dolma_sql.formats.attributes import Spans
from dolma_sql.tagging import TagBatch, require_modules, tagger

_TYPE = "by(-nc)?(-nd)?(-sa)?"
_VERSION = r"\d+\.\d+"
_LANG = r"\w{2}"
ATTRIBUTE_PATTERN = (
    r"<(a|A|meta)\s[\w\p{Punct}\s=]*\n*(href|HREF|content)"
    r"=('|\"|&quot;)?http(s*)://creativecommons\.org/"
    rf"((licenses/(?P<type>{_TYPE}))|(?P<type>publicdomain/(zero|certification|mark)))"
    rf"(?P<version>/{_VERSION})?"
    rf"((/{_LANG})?/((deed|legalcode)\.)?(?P<lang>{_LANG}))?.*?('|\"|&quot;).*?>"
)
"""An ``<a href=…>`` or ``<meta content=…>`` naming a licence, its version and language (the ``regex`` module's syntax)."""
FAST_PATTERN = r"http[s]?://creativecommons\.org/licenses/(?P<type>by|by-sa|by-nd|by-nc|by-nc-sa|by-nc-nd|publicdomain)[\"/ >]"
"""A bare licence URL followed by a quote, slash, space or ``>``."""
MENTIONS = ("creativecommons.org/licenses", "creativecommons.org/publicdomain")


def require_regex(options: dict) -> None:
    require_modules("the cc_re taggers", ["regex"], hint="pip install regex")


def _compiled(pattern: str):
    import regex

    return regex.compile(pattern)


def _licences(batch: TagBatch, pattern: str) -> dict[str, Spans]:
    html = batch.metadata_field("html")
    if html.null_count():
        row = int(np.flatnonzero(html.is_null().to_numpy())[0])
        raise ValueError(f"cannot find `html` key in the metadata of document {batch.column('id')[row].as_py()!r}")
    mentioned = pl.select(pl.any_horizontal([html.str.contains(m, literal=True) for m in MENTIONS])).to_series().to_numpy()
    compiled = batch.cached(f"licences:{pattern}", lambda: _compiled(pattern))
    groups = compiled.groupindex
    collected: dict[str, list[tuple[int, float]]] = {}
    for row in np.flatnonzero(mentioned).tolist():
        for index, match in enumerate(compiled.finditer(html[row])):
            name = match.group("type")
            if "version" in groups and (version := match.group("version")) is not None:
                name += f"_{version.strip('/')}"
            if "lang" in groups and (lang := match.group("lang")) is not None:
                name += f"_{lang}"
            collected.setdefault(f"cc_{name}", []).append((row, 0.5 + 0.5 / (index + 1.0)))
    lengths = batch.lengths
    output = {}
    for span_type, items in collected.items():
        rows = np.array([row for row, _ in items], dtype=np.int64)
        order = np.argsort(rows, kind="stable")
        rows = rows[order]
        output[span_type] = Spans(rows, np.zeros(len(rows), dtype=np.int64), lengths[rows], np.array([s for _, s in items])[order])
    return output


LICENCES = {"types": ["cc_<type>[_<version>][_<lang>]"], "needs": ["metadata"], "requires": "regex", "check": require_regex, "vectorized": False}


@tagger("cc_re", **LICENCES)
def cc_re(batch: TagBatch):
    return _licences(batch, ATTRIBUTE_PATTERN)


@tagger("cc_re_fast", **LICENCES)
def cc_re_fast(batch: TagBatch):
    return _licences(batch, FAST_PATTERN)
