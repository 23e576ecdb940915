"""StarCoder code-quality taggers (dolma ``taggers/code/code_taggers.py``, ``code_starcoder_taggers_v1/_v2``).

A document's language comes from its ``metadata.ext``: the lexer pygments picks for a file named
``*.ext`` (upstream looks the extension up in a bundled GitHub-linguist table, then asks pygments
for a lexer by that language's name; README "Tagging" lists where the two differ). The XML-header
flag, the star count and every document without a language are computed over the whole batch;
comment ratios (pygments, or Python's ``ast`` and ``tokenize``) and HTML text ratios (BeautifulSoup)
are per document, on the documents that need them only.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from collections.abc import Callable
from functools import cache

import numpy as np
import polars as pl

from dolma_sql.errors import install_hint
from dolma_sql.tagging import Spans, TagBatch, require_modules, tagger

XML_HEADER = "<?xml version="
XML_HEADER_WINDOW = 100
"""The XML declaration counts only within the first 100 characters."""

NO_SCORE = -1.0
"""Upstream's score when a ratio cannot be computed (no language, empty text, a parser failure)."""

COMMENT_RATIO_LANGUAGES = ("python", "java", "javascript")
"""The languages v2 measures comments in; every other document gets ``UNMEASURED_COMMENT_RATIO``."""

UNMEASURED_COMMENT_RATIO = 0.5

MIN_HTML_TEXT = 100
"""An HTML page with no more than this many characters of visible text has a text ratio of 0."""

DOCSTRING_OWNERS = {ast.ClassDef: "Class", ast.FunctionDef: "Function/Method", ast.Module: "Module"}
"""Nodes whose docstrings count as natural text (as in bigcode's extraction: not async functions)."""


def require_code_dependencies(options: dict) -> None:
    require_modules("StarCoder code taggers", ["pygments", "bs4"], hint=install_hint("code", "pygments, beautifulsoup4"))


# ------------------------------------------------------------------ language of an extension
@cache
def lexer_for_extension(extension: str | None):
    """A pygments lexer for files ending in ``.<extension>``, or None (no extension, or one pygments does not know)."""
    from pygments.lexers import find_lexer_class_for_filename

    if not extension or "." in extension or "/" in extension:
        return None
    lexer_class = find_lexer_class_for_filename(f"file.{extension}")
    return lexer_class() if lexer_class is not None else None


def language_name(lexer) -> str | None:
    """The lexer's primary pygments alias (``python``, ``java``, ``javascript``, ``html``, …)."""
    return lexer.aliases[0] if lexer is not None else None


# ------------------------------------------------------------------ natural text in code
def comment_ratio(text: str, lexer) -> float:
    """Share of the text that is natural language: docstrings and comments for Python, comment tokens otherwise."""
    if language_name(lexer) == "python":
        return len(python_natural_text(text)) / len(text)
    return comment_characters(text, lexer) / len(text)


def comment_characters(text: str, lexer) -> int:
    """Characters in pygments' single-line and multi-line comment tokens (not their subtypes, e.g. preprocessor lines)."""
    from pygments import lex
    from pygments.token import Comment

    return sum(len(value) for kind, value in lex(text, lexer) if kind in (Comment.Single, Comment.Multiline))


def python_natural_text(source: str) -> str:
    """Docstrings (ordered by owner kind, then name) and ``#`` comments without their ``#``, as bigcode extracts them.

    A part that fails to parse contributes nothing.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            docstrings = "\n".join(_docstrings(ast.parse(source)))
        except Exception:  # noqa: BLE001 - any parse failure leaves the docstrings out
            docstrings = ""
        try:
            comments = "".join(value for kind, value, *_ in tokenize.generate_tokens(io.StringIO(source).readline) if kind == tokenize.COMMENT)
        except Exception:  # noqa: BLE001 - a tokenizer error drops every comment
            comments = ""
    return (docstrings + "\n" + comments.replace("#", "")).strip()


def _docstrings(tree: ast.AST) -> list[str]:
    owners = [(DOCSTRING_OWNERS[type(node)], getattr(node, "name", None) or "", node) for node in ast.walk(tree) if type(node) in DOCSTRING_OWNERS]
    owners.sort(key=lambda owner: owner[:2])
    return [text for *_, node in owners if (text := ast.get_docstring(node))]


def html_text_ratio(html: str) -> float:
    """Visible text (without scripts and styles) over the page's length; 0 when the page shows little text."""
    from bs4 import BeautifulSoup

    try:
        with warnings.catch_warnings():  # bs4 warns per document that looks like XML or a URL; the ratio is the same
            warnings.simplefilter("ignore")
            soup = BeautifulSoup(html, features="html.parser")
    except (TypeError, UnboundLocalError):  # html.parser's known failures on malformed markup
        return 0.0
    for element in soup(["script", "style"]):
        element.extract()
    visible = len(soup.get_text())
    ratio = visible / len(html)  # divides first: an empty page is a failure (-1), not a ratio of 0
    return ratio if visible > MIN_HTML_TEXT else 0.0


def _guarded(measure: Callable[[], float]) -> float:
    try:
        return measure()
    except Exception:  # noqa: BLE001 - upstream scores any failure (an empty text included) as -1
        return NO_SCORE


# ------------------------------------------------------------------ batch columns
def _document_lexers(batch: TagBatch) -> list:
    """The lexer of each document's ``metadata.ext`` (looked up once per distinct extension)."""
    extensions = batch.metadata_field("ext")
    distinct = extensions.unique().to_list()
    lexers = dict(zip(distinct, map(lexer_for_extension, distinct)))
    return [lexers[extension] for extension in extensions.to_list()]


def _common_scores(batch: TagBatch) -> dict[str, Spans]:
    xml = batch.series.str.slice(0, XML_HEADER_WINDOW).str.contains(XML_HEADER, literal=True).fill_null(False)
    stars = batch.metadata_field("max_stars_count").cast(pl.Float64, strict=False).fill_null(0.0)
    return {
        "has_xml_template_doc": Spans.document(batch.lengths, xml.cast(pl.Float64).to_numpy()),
        "num_github_stars_doc": Spans.document(batch.lengths, stars.to_numpy()),
    }


def _measured(batch: TagBatch, lexers: list, wanted: Callable[[object], bool], measure: Callable[[str, object], tuple], defaults: tuple) -> np.ndarray:
    """One score column per element of ``measure(text, lexer)``, for the documents whose lexer is ``wanted``; ``defaults`` elsewhere."""
    columns = np.tile(np.asarray(defaults, dtype=np.float64)[:, None], len(batch))
    rows = [row for row, lexer in enumerate(lexers) if wanted(lexer)]
    if rows:
        texts = batch.text.take(rows).to_pylist()
        columns[:, rows] = np.array([measure(text, lexers[row]) for row, text in zip(rows, texts)], dtype=np.float64).T
    return columns


def _is_html(lexer) -> bool:
    return language_name(lexer) == "html"


STARCODER = {"needs": ["metadata"], "requires": "pygments, bs4", "check": require_code_dependencies, "vectorized": False}


@tagger("code_starcoder_taggers_v1", types=["has_xml_template_doc", "num_github_stars_doc", "nl_ratio_doc", "code_to_text_ratio_html_doc"], **STARCODER)
def code_starcoder_taggers_v1(batch: TagBatch):
    """Comment ratio in every language pygments knows; HTML text ratio for HTML (a failure of either scores both -1)."""

    def both(text: str, lexer) -> tuple[float, float]:
        try:
            return comment_ratio(text, lexer), html_text_ratio(text) if _is_html(lexer) else 1.0
        except Exception:  # noqa: BLE001 - as upstream, one failure voids both scores
            return NO_SCORE, NO_SCORE

    natural, html = _measured(batch, _document_lexers(batch), lambda lexer: lexer is not None, both, (NO_SCORE, NO_SCORE))
    return {**_common_scores(batch),
            "nl_ratio_doc": Spans.document(batch.lengths, natural),
            "code_to_text_ratio_html_doc": Spans.document(batch.lengths, html)}


@tagger("code_starcoder_taggers_v2", types=["has_xml_template_doc", "num_github_stars_doc", "code_to_comment_ratio_doc", "code_to_text_ratio_html_doc"], **STARCODER)
def code_starcoder_taggers_v2(batch: TagBatch):
    """Comment ratio for Python, Java and JavaScript only (-1 on an empty text, where upstream crashes); HTML text ratio for HTML."""
    lexers = _document_lexers(batch)
    (comments,) = _measured(batch, lexers, lambda lexer: language_name(lexer) in COMMENT_RATIO_LANGUAGES,
                            lambda text, lexer: (_guarded(lambda: comment_ratio(text, lexer)),), (UNMEASURED_COMMENT_RATIO,))
    (html,) = _measured(batch, lexers, _is_html, lambda text, _: (_guarded(lambda: html_text_ratio(text)),), (1.0,))
    return {**_common_scores(batch),
            "code_to_comment_ratio_doc": Spans.document(batch.lengths, comments),
            "code_to_text_ratio_html_doc": Spans.document(batch.lengths, html)}
