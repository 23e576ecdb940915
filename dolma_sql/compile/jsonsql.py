"""Small builders for DuckDB JSON expressions as sqlglot trees.

Every compiler (JSONPath, jq, SQL) works on JSON values held in DuckDB ``JSON`` expressions,
where SQL NULL means "no value" (a missing key, or a jq error). These helpers build the
recurring shapes so the compilers never glue SQL strings.
"""

from __future__ import annotations

import functools
import itertools
import json
from typing import Iterable

from sqlglot import exp

Step = str | int
"""One step of a static path: an object key or an array index (negative counts from the end)."""

NUMBER_TYPES = ("UBIGINT", "BIGINT", "DOUBLE", "HUGEINT", "UHUGEINT")

_lambda_names = itertools.count()


def fn(name: str, *args: exp.Expression) -> exp.Expression:
    """A DuckDB function call, generated verbatim (no dialect rewriting)."""
    return exp.Anonymous(this=name, expressions=list(args))


def lit(value: str | int | float | bool | None) -> exp.Expression:
    """A SQL literal."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, float)):
        return exp.Literal.number(repr(value) if isinstance(value, float) else value)
    return exp.Literal.string(value)


def cast(expression: exp.Expression, to: str) -> exp.Expression:
    return exp.Cast(this=expression, to=_data_type(to).copy())


@functools.cache
def _data_type(name: str) -> exp.DataType:
    """A DuckDB type, parsed once (``DataType.build`` runs the parser every call)."""
    return exp.DataType.build(name, dialect="duckdb")


def json_literal(value) -> exp.Expression:
    """A JSON constant, e.g. ``CAST('[1,2]' AS JSON)``."""
    return cast(lit(json.dumps(value, separators=(",", ":"), ensure_ascii=False)), "JSON")


def json_null() -> exp.Expression:
    return json_literal(None)


def missing() -> exp.Expression:
    """No value at all (SQL NULL typed as JSON)."""
    return cast(exp.Null(), "JSON")


def path_string(path: Iterable[Step]) -> str:
    """A DuckDB JSON path with every key quoted, e.g. ``$."a b"[0]``."""
    parts = ["$"]
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]" if step >= 0 else f"[#{step}]")
        else:
            escaped = step.replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'."{escaped}"')
    return "".join(parts)


def index(expression: exp.Expression, position: int) -> exp.Expression:
    """``expression[position]`` with a 0-based position, written 1-based as DuckDB counts.

    The bracket says it is already 1-based (``offset=1``): otherwise sqlglot infers the type of
    every indexed expression to decide whether to shift it, which dominated compile time.
    """
    return exp.Bracket(this=expression, expressions=[exp.Literal.number(position + 1)], offset=1)


def alias(expression: exp.Expression, name: str) -> exp.Expression:
    """``expression AS name`` without copying ``expression`` (the compiled query is copied once, at the end)."""
    return exp.alias_(expression, name, copy=False)


def json_type(value: exp.Expression) -> exp.Expression:
    return fn("json_type", value)


def is_type(value: exp.Expression, *types: str) -> exp.Expression:
    """Whether ``value``'s JSON type is one of ``types`` (NULL when ``value`` is NULL).

    Read off the value's compact JSON text, whose first byte names its type, instead of parsing
    the value as ``json_type`` does: filters test the types of the same values many times per
    document. Only byte comparisons are used (``starts_with``, ``<``), which never scan the text.
    """
    text = json_text(value)
    tests = {
        "VARCHAR": fn("starts_with", text, lit('"')),
        "ARRAY": fn("starts_with", text, lit("[")),
        "OBJECT": fn("starts_with", text, lit("{")),
        "NULL": exp.EQ(this=text, expression=lit("null")),
        "BOOLEAN": exp.In(this=text, expressions=[lit("true"), lit("false")]),
        "NUMBER": exp.and_(exp.GTE(this=text, expression=lit("-")), exp.LT(this=text, expression=lit(":")), copy=False),  # - or a digit
    }
    kinds = dict.fromkeys("NUMBER" if t in NUMBER_TYPES else t for t in types)
    return or_(*[tests[kind] for kind in kinds])


def is_number(value: exp.Expression) -> exp.Expression:
    return is_type(value, *NUMBER_TYPES)


def as_double(value: exp.Expression) -> exp.Expression:
    """A JSON number's value as DOUBLE; NULL for any other value or none.

    Casts the value's JSON text, which is a numeral only for a number (strings keep their
    quotes; true, false, null, arrays and objects are no numerals): no JSON parse, where a
    JSON-to-DOUBLE cast would parse the value. TRY_CAST: DuckDB evaluates both sides of AND.
    """
    return exp.TryCast(this=json_text(value), to=exp.DataType.build("DOUBLE"))


def as_string(value: exp.Expression) -> exp.Expression:
    """The string inside a JSON string value."""
    return fn("json_extract_string", value, lit("$"))


def json_text(value: exp.Expression) -> exp.Expression:
    """The compact JSON text of a value."""
    return cast(value, "VARCHAR")


def coalesce(*args: exp.Expression) -> exp.Expression:
    return args[0] if len(args) == 1 else exp.func("coalesce", *args)


def case(*whens: tuple[exp.Expression, exp.Expression], default: exp.Expression | None = None) -> exp.Expression:
    node = exp.Case(ifs=[exp.If(this=c, true=v) for c, v in whens])
    if default is not None:
        node.set("default", default)
    return node


def is_null(value: exp.Expression) -> exp.Expression:
    return exp.Is(this=value, expression=exp.Null())


def not_null(value: exp.Expression) -> exp.Expression:
    return exp.Not(this=is_null(value))


def paren(e: exp.Expression) -> exp.Expression:
    return e if isinstance(e, (exp.Paren, exp.Column, exp.Anonymous, exp.Literal, exp.Boolean)) else exp.Paren(this=e)


def and_(*args: exp.Expression) -> exp.Expression:
    args = [a for a in args if a is not None]
    return exp.and_(*[paren(a) for a in args], copy=False) if len(args) > 1 else args[0]


def or_(*args: exp.Expression) -> exp.Expression:
    return exp.or_(*[paren(a) for a in args], copy=False) if len(args) > 1 else args[0]


def not_(e: exp.Expression) -> exp.Expression:
    return exp.Not(this=paren(e))


def array(*items: exp.Expression) -> exp.Expression:
    return exp.Array(expressions=list(items))


def empty_json_list() -> exp.Expression:
    return cast(array(), "JSON[]")


def new_lambda_name() -> str:
    """A fresh lambda parameter name (unique within one compilation, see ``reset_lambda_names``)."""
    return f"_v{next(_lambda_names)}"


def reset_lambda_names() -> None:
    """Restart lambda numbering so compiling the same recipe twice gives the same SQL."""
    global _lambda_names
    _lambda_names = itertools.count()


def lambda_(name: str, body: exp.Expression) -> exp.Expression:
    return exp.Lambda(this=body, expressions=[exp.to_identifier(name)])


def var(name: str) -> exp.Expression:
    return exp.column(name)


def list_transform(items: exp.Expression, name: str, body: exp.Expression) -> exp.Expression:
    return fn("list_transform", items, lambda_(name, body))


def list_filter(items: exp.Expression, name: str, body: exp.Expression) -> exp.Expression:
    return fn("list_filter", items, lambda_(name, body))


def present(items: exp.Expression) -> exp.Expression:
    """The non-NULL elements of a list."""
    name = new_lambda_name()
    return list_filter(items, name, not_null(var(name)))


def length(items: exp.Expression) -> exp.Expression:
    return fn("len", items)


def children(value: exp.Expression) -> exp.Expression:
    """The elements of an array or the values of an object; an empty list for anything else."""
    return coalesce(
        fn("list_concat", fn("json_extract", value, lit("$.*")), fn("json_extract", value, lit("$[*]"))),
        empty_json_list(),
    )


def numbers_equal_or_same(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """JSON equality where numbers compare by value (``1 == 1.0``); FALSE when either is missing."""
    return coalesce(
        paren(
            case(
                (and_(is_number(a), is_number(b)), exp.EQ(this=as_double(a), expression=as_double(b))),
                default=exp.EQ(this=json_text(a), expression=json_text(b)),
            )
        ),
        exp.false(),
    )


def to_json(value: exp.Expression) -> exp.Expression:
    return fn("to_json", value)


def runtime_error(message: str) -> exp.Expression:
    """Abort the query with ``message`` followed by the current ``row``."""
    return fn("error", exp.DPipe(this=lit(message), expression=cast(exp.column("row"), "VARCHAR")))


def parenthesize(tree: exp.Expression) -> exp.Expression:
    """Wrap NOT/AND/OR operands of comparisons in parentheses.

    sqlglot prints ``IS(NOT(x), NULL)`` as ``NOT x IS NULL``, which DuckDB reads as
    ``NOT (x IS NULL)``; built trees must say what they mean. ``tree`` must not share nodes
    (pass a ``copy()``), since this edits through parent links.
    """
    loose = [
        node
        for node in tree.walk()
        if isinstance(node, (exp.Not, exp.Connector))
        and isinstance(node.parent, (exp.Binary, exp.Not))
        and not isinstance(node.parent, exp.Connector)
    ]
    for node in loose:
        node.replace(exp.Paren(this=node.copy()))
    return tree


WHITE_SPACE = r"\t-\r \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
r"""Unicode's White_Space characters, as the members of an RE2 class: what ``\s`` means in Rust's ``regex``."""

UNICODE_CLASSES = {"d": (r"\p{Nd}", r"\p{Nd}"), "D": (r"\P{Nd}", r"\P{Nd}"), "s": (f"[{WHITE_SPACE}]", WHITE_SPACE), "S": (f"[^{WHITE_SPACE}]", None)}
r"""``\d``, ``\D``, ``\s`` and ``\S`` as Rust's ``regex`` (upstream's engine) means them, where RE2's are ASCII: the
replacement outside a class and inside one (None: no way to write it inside a class; it stays RE2's)."""


def unicode_classes(pattern: str) -> str:
    r"""``pattern`` with the classes of :data:`UNICODE_CLASSES` written as upstream's engine reads them (``\w`` and
    ``\b`` have no exact RE2 form and stay ASCII)."""
    written: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escaped = pattern[index + 1]
            outside, inside = UNICODE_CLASSES.get(escaped, (None, None))
            replacement = inside if in_class else outside
            written.append(replacement if replacement is not None else char + escaped)
            index += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            written.append(char)
            index += 1
            if pattern[index : index + 1] == "^":
                written.append("^")
                index += 1
            if pattern[index : index + 1] == "]":  # a leading ] is a member
                written.append("]")
                index += 1
            continue
        if char == "[" and pattern[index : index + 2] == "[:":  # a POSIX class inside a class: copied whole
            end = pattern.find(":]", index + 2)
            if end != -1:
                written.append(pattern[index : end + 2])
                index = end + 2
                continue
        if char == "]" and in_class:
            in_class = False
        written.append(char)
        index += 1
    return "".join(written)


REGEX_HINT = "regular expressions are RE2's (DuckDB runs them): no lookaround, backreferences or possessive quantifiers; name a group with (?P<name>…)"


@functools.cache
def regex_problem(pattern: str) -> str | None:
    """What RE2, the engine that runs the filters' regular expressions, finds wrong with ``pattern`` (None when nothing):
    checked by DuckDB itself, since any other engine accepts and refuses other patterns."""
    import duckdb

    from dolma_sql.engine import sealed_connection

    connection = sealed_connection()
    try:
        connection.execute("SELECT regexp_matches('', ?)", [pattern])
    except duckdb.Error as error:
        return str(error).splitlines()[0].removeprefix("Invalid Input Error: ")
    finally:
        connection.close()
    return None

