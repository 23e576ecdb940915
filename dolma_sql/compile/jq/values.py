"""What a compiled jq expression is: SQL over DuckDB JSON, typed by what it is known to hold.

Single values (``Ref``, ``Val``, ``Bool``, ``Num``, ``Text``) use SQL NULL for a jq error;
``Opt`` and ``Many`` hold zero or more outputs. Keeping booleans, numbers and strings as plain
SQL values avoids a round trip through JSON for every operator. The helpers below read facts
off the shape of SQL expressions, so the compiler can leave out tests that cannot fail.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from dolma_sql.compile import jsonsql as J


@dataclass(frozen=True)
class Ref:
    """The value at ``path`` under ``base`` (the merged document when None); missing = null."""

    base: exp.Expression | None
    path: tuple[str | int, ...] = ()


@dataclass(frozen=True)
class Val:
    expr: exp.Expression  # JSON


@dataclass(frozen=True)
class Bool:
    expr: exp.Expression  # BOOLEAN


@dataclass(frozen=True)
class Num:
    expr: exp.Expression  # DOUBLE


@dataclass(frozen=True)
class Text:
    expr: exp.Expression  # VARCHAR


@dataclass(frozen=True)
class Opt:
    """Zero or one output and never an error: SQL NULL means no output."""

    expr: exp.Expression  # JSON


@dataclass(frozen=True)
class Many:
    """Any number of outputs: a ``JSON[]`` without NULL elements; SQL NULL means an error."""

    expr: exp.Expression


Single = Ref | Val | Bool | Num | Text
Result = Single | Opt | Many

KINDS_OF_TYPE = {"null": ("NULL",), "boolean": ("BOOLEAN",), "string": ("VARCHAR",), "array": ("ARRAY",),
                 "object": ("OBJECT",), "number": J.NUMBER_TYPES}
"""jq's type names -> the DuckDB json_types that have them."""

_FALSY_TEXTS = ("null", "false", '""', "[]", "{}")
_NULL_ONLY_ON_NULL = ("json_array_length", "starts_with")  # functions whose result is NULL only for a NULL first argument


def guard(value: exp.Expression, result: exp.Expression) -> exp.Expression:
    """``result``, or NULL (an error) where ``value`` is an error."""
    return result if never_null(value) else J.case((J.is_null(value), exp.Null()), default=result)


def number_json(number: exp.Expression) -> exp.Expression:
    """A DOUBLE as a JSON number, integral values without a fraction (as jq prints them)."""
    integral = J.and_(exp.EQ(this=number, expression=J.fn("round", number)), exp.LT(this=J.fn("abs", number), expression=J.lit(1e15)))
    return J.case((integral, J.to_json(J.cast(number, "BIGINT"))), default=J.to_json(number))


def is_simple(expression: exp.Expression) -> bool:
    """Cheap to repeat: a column, a constant, an element of a pre-extracted list, or COALESCE/CAST of those."""
    if isinstance(expression, exp.Bracket):
        return isinstance(expression.this, exp.Column)
    if isinstance(expression, exp.Cast):
        return is_simple(expression.this)
    if isinstance(expression, exp.Coalesce):
        return all(is_simple(e) for e in [expression.this, *expression.expressions])
    return isinstance(expression, (exp.Column, exp.Literal, exp.Boolean, exp.Null))


def never_null(expression: exp.Expression) -> bool:
    """Whether ``expression`` can be proved never NULL (never an error) from its shape alone."""
    if isinstance(expression, (exp.Literal, exp.Boolean)):
        return True
    if isinstance(expression, (exp.Paren, exp.Not)):
        return never_null(expression.this)
    if isinstance(expression, exp.Is):
        return True
    if type(expression) is exp.Cast:  # a CAST fails loudly rather than giving NULL (TRY_CAST may)
        return never_null(expression.this)
    if isinstance(expression, exp.Anonymous) and expression.name.lower() in _NULL_ONLY_ON_NULL:
        return never_null(expression.expressions[0])
    if isinstance(expression, exp.Coalesce):
        return any(never_null(e) for e in [expression.this, *expression.expressions])
    if isinstance(expression, exp.Case):
        default = expression.args.get("default")
        return default is not None and never_null(default) and all(never_null(i.args["true"]) for i in expression.args["ifs"])
    if isinstance(expression, (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.And, exp.Or)):
        return never_null(expression.this) and never_null(expression.expression)
    if isinstance(expression, exp.In):
        return never_null(expression.this) and all(never_null(e) for e in expression.expressions)
    return False


def constant_text(value: Single) -> str | None:
    """The JSON text of a constant null/true/false operand (compared by text, no lambda needed)."""
    if isinstance(value, Bool) and isinstance(value.expr, exp.Boolean):
        return "true" if value.expr.this else "false"
    if isinstance(value, Val) and isinstance(value.expr, exp.Cast) and isinstance(value.expr.this, exp.Literal):
        text = value.expr.this.this
        return text if text in ("null", "true", "false") else None
    return None


def dolma_truthy(value: exp.Expression) -> exp.Expression:
    """Upstream's truthiness: false, null, 0, "", [] and {} are false (NULL stays NULL)."""
    is_zero = J.and_(J.is_number(value), exp.EQ(this=J.as_double(value), expression=J.lit(0.0)))
    falsy_text = exp.In(this=J.json_text(value), expressions=[J.lit(t) for t in _FALSY_TEXTS])
    return J.not_(J.or_(falsy_text, is_zero))


def json_truthy(value: exp.Expression) -> exp.Expression:
    """jq truthiness of a JSON value (only false and null are false); NULL on error."""
    return exp.Not(this=exp.In(this=J.json_text(value), expressions=[J.lit("null"), J.lit("false")]))


def case_on_kind(kind: exp.Expression, branches: list[tuple[tuple[str, ...], exp.Expression]]) -> exp.Expression:
    """``CASE`` over a json_type; just the matching branch when the type is known at compile time."""
    if isinstance(kind, exp.Literal):
        return next((value for kinds, value in branches if kind.this in kinds), exp.Null())
    return J.case(*[(exp.In(this=kind, expressions=[J.lit(k) for k in kinds]), value) for kinds, value in branches])
