"""Translating a jq syntax tree to DuckDB SQL: one handler per node type, and the entry points."""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.document import Document
from dolma_sql.compile.jq.builtins import call
from dolma_sql.compile.jq.context import Context
from dolma_sql.compile.jq.facts import implied, tested_types
from dolma_sql.compile.jq.operators import binary
from dolma_sql.compile.jq.parser import parse
from dolma_sql.compile.jq.scores import guarded_score
from dolma_sql.compile.jq.syntax import Binary, Call, Collect, Identity, If, Index, Iterate, Literal, Negate, Try
from dolma_sql.compile.jq.values import (
    Bool, Many, Num, Opt, Ref, Result, Single, Text, Val, dolma_truthy, guard, json_truthy, never_null,
)


def _identity(context: Context, node: Identity, dot: Ref) -> Result:
    return dot


def _index(context: Context, node: Index, dot: Ref) -> Result:
    return context.pipe(context.compile(node.target, dot), lambda d: Ref(d.base, d.path + (node.key,)))


def _iterate(context: Context, node: Iterate, dot: Ref) -> Result:
    return context.pipe(context.compile(node.target, dot), lambda d: _elements_or_values(context, d))


def _elements_or_values(context: Context, dot: Ref) -> Many:
    """``.[]``: an array's elements, an object's values; an error on any other input."""
    value = context.json(dot)
    kind = J.json_type(value)
    return Many(
        J.case(
            (exp.EQ(this=kind, expression=J.lit("ARRAY")), J.fn("json_extract", value, J.lit("$[*]"))),
            (exp.EQ(this=kind, expression=J.lit("OBJECT")), J.fn("json_extract", value, J.lit("$.*"))),
        )
    )


def _literal(context: Context, node: Literal, dot: Ref) -> Single:
    value = node.value
    if isinstance(value, bool):
        return Bool(J.lit(value))
    if isinstance(value, (int, float)):
        return Num(J.lit(float(value)))
    if isinstance(value, str):
        return Text(J.lit(value))
    return Val(J.json_literal(value))


def _negate(context: Context, node: Negate, dot: Ref) -> Result:
    operand = context.single(context.compile(node.operand, dot), node, "negation")
    negate = lambda v: Num(exp.Neg(this=J.as_double(context.json(v))))  # noqa: E731
    return context.let([operand], negate)


def _collect(context: Context, node: Collect, dot: Ref) -> Val:
    if node.body is None:
        return Val(J.json_literal([]))
    return Val(J.to_json(context.as_list(context.compile(node.body, dot))))


def _if(context: Context, node: If, dot: Ref) -> Result:
    """``if c1 then a elif c2 then b else d end``; dolma's guarded score test as JSONPath's plan (``scores``)."""
    score_test = guarded_score(context, node, dot)
    return score_test if score_test is not None else _choices(context, node, dot)


def _choices(context: Context, node: If, dot: Ref) -> Result:
    """``if`` as nested choices; a multi-output condition runs the chosen branch once per output, as jq does."""
    result = context.compile(node.otherwise, dot) if node.otherwise is not None else dot
    for condition_node, value_node in reversed(node.branches):
        value = context.under(implied(condition_node, dot), lambda v=value_node: context.compile(v, dot))
        otherwise = result
        condition = context.compile(condition_node, dot)
        if isinstance(condition, (Opt, Many)):
            result = context.pipe(condition, lambda c, v=value, o=otherwise: _choose(context, c, v, o))
        else:
            result = _choose(context, condition, value, otherwise)
    return result


def _choose(context: Context, condition: Single, then: Result, otherwise: Result) -> Result:
    if isinstance(then, Bool) and isinstance(otherwise, Bool):
        convert, wrap = (lambda r: r.expr), Bool
    elif isinstance(then, (Ref, Val, Bool, Num, Text)) and isinstance(otherwise, (Ref, Val, Bool, Num, Text)):
        convert, wrap = context.json, Val
    else:
        convert, wrap = context.as_list, Many

    def choose(truth: Bool) -> Result:
        return wrap(J.case((J.is_null(truth.expr), exp.Null()), (truth.expr, convert(then)), default=convert(otherwise)))

    truth = Bool(context.truthy(condition))
    if never_null(truth.expr):
        return wrap(J.case((truth.expr, convert(then)), default=convert(otherwise)))
    return context.let([truth], choose)


def _try(context: Context, node: Try, dot: Ref) -> Result:
    body = context.compile(node.body, dot)
    if isinstance(body, Opt) or (isinstance(body, Ref) and context.ref_error(body) is None):
        return body
    handler = None
    if node.handler is not None:  # the handler's input (the error message) is given as null
        handler = context.compile(node.handler, Ref(J.json_null()))
    if isinstance(body, Many) or isinstance(handler, (Opt, Many)):
        fallback = context.as_list(handler) if handler is not None else J.empty_json_list()
        return Many(J.coalesce(context.as_list(body), fallback))
    if handler is None:
        return Opt(context.json(body))
    return Val(J.coalesce(context.json(body), context.json(handler)))


def _binary(context: Context, node: Binary, dot: Ref) -> Result:
    return _COMBINATORS.get(node.op, _operator)(context, node, dot)


def _pipe(context: Context, node: Binary, dot: Ref) -> Result:
    return context.pipe(context.compile(node.left, dot), lambda d: context.compile(node.right, d))


def _comma(context: Context, node: Binary, dot: Ref) -> Many:
    left, right = context.as_list(context.compile(node.left, dot)), context.as_list(context.compile(node.right, dot))
    return Many(J.case((J.or_(J.is_null(left), J.is_null(right)), exp.Null()), default=J.fn("list_concat", left, right)))


def _alternative(context: Context, node: Binary, dot: Ref) -> Result:
    left, right = context.compile(node.left, dot), context.compile(node.right, dot)
    if isinstance(left, Many) or isinstance(right, (Opt, Many)):
        items = context.as_list(left)
        name = J.new_lambda_name()
        kept = J.list_filter(items, name, json_truthy(J.var(name)))
        usable = J.and_(J.not_null(items), exp.GT(this=J.length(kept), expression=J.lit(0)))
        return Many(J.case((usable, kept), default=context.as_list(right)))

    def pick(bound: Single) -> Val:
        value = context.json(bound)
        usable = J.and_(J.not_null(value), json_truthy(value))
        return Val(J.case((usable, value), default=context.json(right)))

    first = left.expr if isinstance(left, Opt) else context.json(left)  # NULL: no output or an error
    return context.let([Val(first)], pick)


def _operator(context: Context, node: Binary, dot: Ref) -> Result:
    """``and``, ``or``, a comparison or arithmetic, on every combination of the two sides' outputs."""
    if tested_types(node) is not None:  # a test of the json_type: no type name is computed
        return Bool(context.has_kind(dot, tested_types(node)))
    left = context.compile(node.left, dot)
    if node.op == "and":  # the right side runs only where the left is truthy
        right = context.under(implied(node.left, dot), lambda: context.compile(node.right, dot))
    else:
        right = context.compile(node.right, dot)
    if isinstance(left, (Opt, Many)) or isinstance(right, (Opt, Many)):  # every combination of outputs
        return context.pipe(right, lambda r: context.pipe(left, lambda l: binary(context, node.op, l, r)))
    return binary(context, node.op, left, right)


_COMBINATORS: dict[str, Callable[[Context, Binary, Ref], Result]] = {"|": _pipe, ",": _comma, "//": _alternative}
"""The binary operators that combine whole outputs rather than single values."""

NODE_HANDLERS = {
    Identity: _identity,
    Index: _index,
    Iterate: _iterate,
    Literal: _literal,
    Negate: _negate,
    Collect: _collect,
    If: _if,
    Try: _try,
    Binary: _binary,
    Call: call,
}


class JqCompiler(Context):
    """Translates one jq expression to SQL over the merged document.

    While compiling what runs only when a guard held (the right side of ``and``, a ``then``
    branch), the types the guard proves (``type == "array"``, ``.[0] != null``) are known:
    index steps they make safe need no error test and known types need no lookup, so the
    usual ``type == "array" and length > 0 and .[0] != null`` idiom compiles to plain SQL.
    """

    node_handlers = NODE_HANDLERS

    def __init__(self, doc: Document, text: str, config_path: str | None = None) -> None:
        super().__init__(doc, text, config_path)
        self.tree = parse(text, config_path)

    def matches(self, exclude: bool = False) -> exp.Expression:
        """The rule's decision with upstream's truthiness (0, "", [] and {} are false too); NULL on error.

        As upstream: an include passes when there is ≥1 output and all are truthy; an exclude drops
        the document when any output is truthy.
        """
        return self._decide(self.compile(self.tree, Ref(None)), exclude).transform(_nonempty_arrays_by_text, copy=False)

    def _decide(self, result: Result, exclude: bool) -> exp.Expression:
        if isinstance(result, Bool):
            return result.expr
        if isinstance(result, Num):
            return exp.NEQ(this=result.expr, expression=J.lit(0.0))
        if isinstance(result, Text):
            return exp.NEQ(this=result.expr, expression=J.lit(""))
        if isinstance(result, Opt):
            return J.coalesce(J.paren(dolma_truthy(result.expr)), exp.false())
        if isinstance(result, Many):
            name = J.new_lambda_name()
            truths = J.list_transform(result.expr, name, dolma_truthy(J.var(name)))
            return J.case(
                (J.is_null(result.expr), exp.Null()),
                (exp.EQ(this=J.length(result.expr), expression=J.lit(0)), exp.false()),
                default=J.fn("list_bool_or" if exclude else "list_bool_and", truths),
            )
        return self.let([Val(self.json(result))], lambda v: Bool(guard(v.expr, dolma_truthy(v.expr)))).expr

    def select(self) -> exp.Expression:
        """Span selector: the JSON output (an array of outputs when several; NULL when none)."""
        result = self.compile(self.tree, Ref(None))
        if isinstance(result, Opt):
            return result.expr
        failure = J.runtime_error(f"{self.config_path}: jq `{self.text}` failed on the document at row ")
        if isinstance(result, Many):
            items = result.expr
            return J.case(
                (J.is_null(items), failure),
                (exp.EQ(this=J.length(items), expression=J.lit(0)), J.missing()),
                (exp.EQ(this=J.length(items), expression=J.lit(1)), J.index(items, 0)),
                default=J.to_json(items),
            )
        value = self.json(result)
        if never_null(value):
            return value
        return self.let([Val(value)], lambda v: Val(J.case((J.is_null(v.expr), failure), default=v.expr))).expr

    def string(self) -> exp.Expression:
        """Replacement text: the expression must yield one string."""
        failure = J.runtime_error(f"{self.config_path}: jq `{self.text}` must produce a string; it did not on row ")
        as_text = lambda v: Text(J.case((J.is_type(v.expr, "VARCHAR"), J.as_string(v.expr)), default=failure))  # noqa: E731
        return self.let([Val(self.select())], as_text).expr


def _nonempty_arrays_by_text(node: exp.Expression) -> exp.Expression:
    """``0 < length`` of a known array (dolma's ``length > 0``) as ``text <> '[]'``: a text comparison
    instead of parsing the array once per rule and row. Every JSON value here is DuckDB's compact
    text, so an empty array is exactly ``[]``. (A sqlglot ``transform`` function, applied once the
    rule is compiled, when its values are no longer bound to lambda variables.)"""
    if isinstance(node, exp.LT) and _is_zero(node.this) and (array := _array_measured(node.expression)) is not None:
        return exp.NEQ(this=J.json_text(array), expression=J.lit("[]"))
    return node


def _is_zero(expression: exp.Expression) -> bool:
    return isinstance(expression, exp.Literal) and not expression.is_string and float(expression.this) == 0


def _array_measured(expression: exp.Expression) -> exp.Expression | None:
    """The array ``a`` if ``expression`` is ``CAST(json_array_length(a) AS DOUBLE)``, the ``length`` of a known array."""
    if isinstance(expression, exp.Cast) and isinstance(expression.this, exp.Anonymous) and expression.this.name == "json_array_length":
        arguments = expression.this.expressions
        return arguments[0] if len(arguments) == 1 else None
    return None
