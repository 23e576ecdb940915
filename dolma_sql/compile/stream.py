"""Assembling one stream's filter and span selectors into a single DuckDB query over ``batch``.

The query has three layers: the innermost parses each raw JSON column once, extracting every
path the recipe reads (see ``document.py``); the middle one decides ``keep`` (and, on request,
each rule on its own); the outer one computes span selections and jq replacements for kept rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.document import Document, Path
from dolma_sql.compile.jq import JqCompiler
from dolma_sql.compile.jsonpath import JsonPathCompiler
from dolma_sql.compile.sqlpred import SqlPredicateCompiler
from dolma_sql.config.mix import SYNTAXES
from dolma_sql.errors import CompileError


@dataclass(frozen=True)
class SpanRule:
    """One ``span_replacement`` entry; a replacement starting with ``$`` is a jq expression."""

    span: str
    syntax: str = "jsonpath"
    replacement: str = ""


@dataclass(frozen=True)
class StreamQuery:
    sql: str  # DuckDB SQL over `batch`, pretty-printed (what `mix --explain` prints)
    expression: exp.Select  # the same query as an AST
    attribute_keys: frozenset[str]  # attribute keys the recipe reads, for "key not found" warnings


def _join(config_path: str, suffix: str) -> str:
    return f"{config_path}.{suffix}" if config_path else suffix


def _check_syntax(syntax: str, where: str) -> None:
    if syntax not in SYNTAXES:
        raise CompileError(
            f"unknown syntax {syntax!r}; expected one of {', '.join(SYNTAXES)}", expression=syntax, path=where
        )


def _rule(doc: Document, text: str, syntax: str, where: str, exclude: bool) -> exp.Expression:
    """The rule's decision (match, or drop for an exclude); NULL when a jq expression fails at run time."""
    if syntax == "jsonpath":
        return JsonPathCompiler(doc, text, where).matches()
    if syntax == "jq":
        return JqCompiler(doc, text, where).matches(exclude=exclude)
    return SqlPredicateCompiler(doc, text, where).predicate()


def _strict(decision: exp.Expression, text: str, syntax: str, where: str) -> exp.Expression:
    """Raise a clear run-time error where a jq rule could not be evaluated (the others cannot fail)."""
    if syntax != "jq":
        return decision
    message = f"{where}: evaluating jq `{text}` failed on the document at row "
    return J.coalesce(decision, J.runtime_error(message))  # DuckDB evaluates COALESCE arguments lazily


def _keep(includes: list[exp.Expression], excludes: list[exp.Expression]) -> exp.Expression:
    """keep = (no includes or any include) and no exclude, evaluated lazily in rule order."""
    whens = []
    if includes:
        any_include = J.case(*[(rule, exp.true()) for rule in includes], default=exp.false())
        whens.append((J.not_(any_include), exp.false()))
    whens += [(rule, exp.false()) for rule in excludes]
    return J.case(*whens, default=exp.true()) if whens else exp.true()


def compile_stream(
    *,
    include: list[str],
    exclude: list[str],
    syntax: str,
    spans: list[SpanRule],
    n_attribute_sets: int,
    config_path: str = "",
    rule_columns: bool = False,
    alignment_check: bool = False,
    text_bytes: bool = False,
    stripped_text_bytes: str | None = None,
) -> StreamQuery:
    """Compile a stream's filter and span selectors to one query (see the module docstring).

    With ``alignment_check`` the query also returns ``problem``: TRUE for a row whose document
    has no string ``text`` or whose attribute lines do not line up (another ``id``, or no
    ``attributes`` object); see ``_alignment_problem`` for which rows the text is checked on and
    what the caller must check itself. ``text_bytes`` adds
    the UTF-8 length of each text, and ``stripped_text_bytes`` (characters to strip) its length
    once those are trimmed from both ends: what a dry run counts, from that same parse.
    """
    J.reset_lambda_names()
    doc = Document(n_attribute_sets)
    _check_syntax(syntax, _join(config_path, "filter.syntax"))
    decided: dict[str, list[tuple[str, str, exp.Expression]]] = {"include": [], "exclude": []}  # text, path, rule
    for kind, rules in (("include", include), ("exclude", exclude)):
        for i, text in enumerate(rules):
            where = _join(config_path, f"filter.{kind}[{i}]")
            decided[kind].append((text, where, _rule(doc, text, syntax, where, exclude=kind == "exclude")))

    outputs: list[exp.Expression] = []
    for i, rule in enumerate(spans):
        where = _join(config_path, f"span_replacement[{i}]")
        _check_syntax(rule.syntax, f"{where}.syntax")
        if rule.syntax == "jq":
            selected = JqCompiler(doc, rule.span, f"{where}.span").select()
        elif rule.syntax == "jsonpath":
            selected = JsonPathCompiler(doc, rule.span, f"{where}.span").select()
        else:
            raise CompileError("span selectors must use jsonpath or jq", expression=rule.span, path=f"{where}.syntax")
        outputs.append(J.alias(J.case((exp.column("keep"), J.json_text(selected))), f"span_{i}"))
        if rule.replacement.startswith("$"):
            value = JqCompiler(doc, rule.replacement[1:], f"{where}.replacement").string()
            outputs.append(J.alias(J.case((exp.column("keep"), value)), f"replacement_{i}"))

    rules = []
    if rule_columns:  # each decision is computed once, into its column, and keep reads the columns
        rules = [J.alias(d, f"{kind}_{i}") for kind in decided for i, (_, _, d) in enumerate(decided[kind])]
        decided = {kind: [(t, w, exp.column(f"{kind}_{i}")) for i, (t, w, _) in enumerate(rules_)] for kind, rules_ in decided.items()}
    keep = _keep(
        [_strict(d, t, syntax, w) for t, w, d in decided["include"]],
        [_strict(d, t, syntax, w) for t, w, d in decided["exclude"]],
    )

    measures = _text_measures(doc, text_bytes, stripped_text_bytes)
    checks = [J.alias(_alignment_problem(doc), "problem")] if alignment_check else []  # after every path is registered
    passed = [*rules, *measures]
    # the builders take their parts as they are (copy=False): the one copy() at the end unshares the
    # nodes they reuse, where copying every part as it is added cost most of the compile time
    merged = doc.relation().subquery("merged", copy=False)
    if rule_columns:
        ruled = exp.select("row", *doc.columns(), *passed, copy=False).from_(merged, copy=False)
        middle = exp.select("*", J.alias(keep, "keep"), copy=False).from_(ruled.subquery("ruled", copy=False), copy=False)
    else:
        middle = exp.select("row", *doc.columns(), J.alias(keep, "keep"), *passed, copy=False).from_(merged, copy=False)
    outer = exp.select("row", "keep", *outputs, *[p.alias for p in passed], *checks, copy=False)
    outer = outer.from_(middle.subquery("decided", copy=False), copy=False)
    outer = J.parenthesize(outer.copy())  # copy() unshares nodes that the builders reuse
    return StreamQuery(
        sql=outer.sql(dialect="duckdb", pretty=True, copy=False),
        expression=outer,
        attribute_keys=frozenset(doc.attribute_keys),
    )


def _text_measures(doc: Document, whole: bool, strip: str | None) -> list[exp.Expression]:
    """``text_bytes`` and ``stripped_text_bytes`` as requested (NULL when the text is not a string).

    The stripped length subtracts the runs that anchored regular expressions find at both ends:
    DuckDB's ``trim(text, characters)`` walks the whole text and costs 15x more.
    """
    if not whole and strip is None:
        return []  # register no path the query does not otherwise read
    text = J.as_string(doc.raw_value("doc", ("text",)))
    length = J.fn("strlen", text)
    measures = [J.alias(length, "text_bytes")] if whole else []
    if strip is not None:
        characters = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in strip) + "]*" if strip else ""
        ends = [J.fn("strlen", J.fn("regexp_extract", text, J.lit(pattern))) for pattern in (f"^{characters}", f"{characters}$")]
        stripped = J.fn("greatest", J.lit(0), exp.Sub(this=exp.Sub(this=length, expression=ends[0]), expression=ends[1]))  # all stripped: both ends match it all
        measures.append(J.alias(stripped, "stripped_text_bytes"))
    return measures


def _is(value: exp.Expression, json_type: str) -> exp.Expression:
    """Whether a JSON value has ``json_type`` (read off its text, no parse); FALSE when absent."""
    return J.coalesce(J.is_type(value, json_type), exp.false())


def _id_text(value: exp.Expression) -> exp.Expression:
    """An id's JSON text, NULL for a missing id and for ``null`` alike: dolma matches a document without an id with
    the attribute line ``dedupe`` writes for it (``"id":null``)."""
    return exp.Nullif(this=J.cast(value, "VARCHAR"), expression=exp.Literal.string("null"))


def _alignment_problem(doc: Document) -> exp.Expression:
    """TRUE when the document lacks a string ``text`` or an attribute line does not line up with it.

    Extracting ``text`` or ``attributes`` only to check their type would serialize them, a fifth of
    the query's time, so they are checked from values the query reads anyway where it can:
    - ``attributes`` is an object wherever one of the recipe's keys was found in it; other lines
      are parsed again.
    - ``text`` is checked on every row only when the query reads it anyway; otherwise on the
      dropped rows only, by parsing them again, and the caller checks the kept documents as it
      decodes them.
    """
    document_id = doc.raw_value("doc", ("id",))
    no_text = _not_of_type(doc, "doc", ("text",), "VARCHAR")
    if not doc.reads("doc", ("text",)):
        no_text = _only_where(J.not_(exp.column("keep")), no_text)
    problems = [no_text]
    for source in doc.sources[1:]:
        attribute_id = doc.raw_value(source, ("id",))
        not_an_object = _not_of_type(doc, source, ("attributes",), "OBJECT")
        found = None if doc.reads(source, ("attributes",)) else doc.attribute_keys_found(source)
        mismatch = J.or_(
            exp.NullSafeNEQ(this=_id_text(attribute_id), expression=_id_text(document_id)),
            # most lines hold a recipe key, so the re-parse is rare here; written as _only_where(NOT found, …) it measured no faster
            not_an_object if found is None else J.case((found, exp.false()), default=not_an_object),
        )
        problems.append(J.and_(doc.raw_present(source), J.paren(mismatch)))
    return J.or_(*problems)


def _only_where(condition: exp.Expression, check: exp.Expression) -> exp.Expression:
    """``check`` on the rows where ``condition`` holds, FALSE elsewhere, for a check that parses a line again.

    DuckDB evaluates a CASE branch on its own rows only. Written the other way round, as
    ``CASE WHEN NOT condition THEN FALSE ELSE check END``, the text check of dropped documents
    cost the mix bench's query about twice as much (16 against 6 ms per 10k documents).
    """
    return J.case((condition, check), default=exp.false())


def _not_of_type(doc: Document, source: str, path: Path, json_type: str) -> exp.Expression:
    """Whether the value at ``path`` of a raw line is absent or not a ``json_type``: read off the
    extracted value when the query extracts it, else by parsing the line again."""
    if doc.reads(source, path):
        return J.not_(_is(doc.raw_value(source, path), json_type))
    return J.not_(J.coalesce(exp.EQ(this=doc.raw_type(source, path), expression=J.lit(json_type)), exp.false()))
