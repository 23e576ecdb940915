"""jq's builtins, one handler each per ``name/arity`` (jq's own way of naming them)."""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.jq.context import Context
from dolma_sql.compile.jq.syntax import Binary, Call, Collect, Identity, Index, Iterate, Literal, Node
from dolma_sql.compile.jq.values import (
    KINDS_OF_TYPE, Bool, Many, Num, Opt, Ref, Result, Single, Text, Val, case_on_kind, json_truthy, never_null, number_json,
)

Builtin = Callable[[Context, Call, Ref], Result]
OnValue = Callable[[exp.Expression, exp.Expression], Single]
"""A builtin's result from its input's JSON ``value`` and json_type ``kind`` (SQL NULL = error)."""

_TYPE_NAMES = (("NULL", "null"), ("BOOLEAN", "boolean"), ("VARCHAR", "string"), ("ARRAY", "array"), ("OBJECT", "object"))


def call(context: Context, node: Call, dot: Ref) -> Result:
    """A builtin call, or an error naming the supported builtins."""
    builtin = BUILTINS.get(f"{node.name}/{len(node.args)}")
    if builtin is None:
        raise context.fail(f"`{node.name}/{len(node.args)}` is not supported; supported builtins: {_SUPPORTED}", node)
    return builtin(context, node, dot)


# -- builtins defined by other jq ------------------------------------------------------------
def _mapped(node: Call) -> Node:
    """``[.[] | f]`` for ``map(f)``, ``any(f)`` and ``all(f)``."""
    return Collect(node.position, Binary(node.position, "|", Iterate(node.position, Identity(node.position)), node.args[0]))


def _map(context: Context, node: Call, dot: Ref) -> Result:
    return context.compile(_mapped(node), dot)


def _any_or_all_of_mapped(context: Context, node: Call, dot: Ref) -> Result:
    """``any(f)`` as ``map(f) | any``, ``all(f)`` as ``map(f) | all``."""
    return context.compile(Binary(node.position, "|", _mapped(node), Call(node.position, node.name, ())), dot)


def _element_at(index: int) -> Builtin:
    """``first`` as ``.[0]``, ``last`` as ``.[-1]``."""
    return lambda context, node, dot: context.compile(Index(node.position, Identity(node.position), index), dot)


# -- builtins on outputs ---------------------------------------------------------------------
def _empty(context: Context, node: Call, dot: Ref) -> Opt:
    return Opt(J.missing())


def _error(context: Context, node: Call, dot: Ref) -> Val:
    return Val(J.missing())


def _select(context: Context, node: Call, dot: Ref) -> Result:
    condition = context.compile(node.args[0], dot)
    if isinstance(condition, (Opt, Many)):  # `.` once per truthy output
        return context.pipe(condition, lambda c: _select_on(context, c, dot))
    return _select_on(context, condition, dot)


def _select_on(context: Context, condition: Single, dot: Ref) -> Many:
    truth = context.truthy(condition)
    return Many(J.case((J.is_null(truth), exp.Null()), (truth, J.array(context.json(dot))), default=J.empty_json_list()))


def _not(context: Context, node: Call, dot: Ref) -> Bool:
    return Bool(exp.Not(this=J.paren(context.truthy(dot))))


# -- builtins on the input's value and json_type ---------------------------------------------
def _with_value_and_kind(context: Context, dot: Ref, on: OnValue) -> Result:
    return context.let([Val(context.json(dot)), Text(context.kind(dot))], lambda v, k: on(v.expr, k.expr))


def _on_value(on: OnValue) -> Builtin:
    return lambda context, node, dot: _with_value_and_kind(context, dot, on)


def _is_kind(kind: exp.Expression, *types: str) -> exp.Expression:
    return exp.In(this=kind, expressions=[J.lit(t) for t in types])


def _only_on(kind: exp.Expression, json_type: str, result: exp.Expression) -> Bool:
    """``result`` on an input of ``json_type``, an error on any other."""
    return Bool(J.case((exp.EQ(this=kind, expression=J.lit(json_type)), result)))


def _elements(value: exp.Expression) -> exp.Expression:
    return J.fn("json_extract", value, J.lit("$[*]"))


def _type(context: Context, node: Call, dot: Ref) -> Result:
    """``type`` needs only the json_type, known at compile time where a guard proved it."""
    return context.let([Text(context.kind(dot))], lambda k: _type_name(k.expr))


def _type_name(kind: exp.Expression) -> Text:
    if isinstance(kind, exp.Literal):
        return Text(case_on_kind(kind, [(kinds, J.lit(n)) for n, kinds in KINDS_OF_TYPE.items()]))
    names = [(exp.EQ(this=kind, expression=J.lit(t)), J.lit(n)) for t, n in _TYPE_NAMES]
    if never_null(kind):  # every other json_type is a number
        return Text(J.case(*names, default=J.lit("number")))
    return Text(J.case(*names, (_is_kind(kind, *J.NUMBER_TYPES), J.lit("number"))))


def _length(value: exp.Expression, kind: exp.Expression) -> Num:
    return Num(J.cast(case_on_kind(kind, [
        (("NULL",), J.lit(0)),
        (("ARRAY",), J.fn("json_array_length", value)),
        (("OBJECT",), J.length(J.fn("json_keys", value))),
        (("VARCHAR",), J.fn("length", J.as_string(value))),
        (J.NUMBER_TYPES, J.fn("abs", J.as_double(value))),
    ]), "DOUBLE"))


def _string_function(sql_function: str) -> OnValue:
    """``ascii_downcase`` and ``ascii_upcase``: a SQL function of a string."""
    return lambda value, kind: Text(J.case((_is_kind(kind, "VARCHAR"), J.fn(sql_function, J.as_string(value)))))


def _tostring(value: exp.Expression, kind: exp.Expression) -> Text:
    return Text(J.case((_is_kind(kind, "VARCHAR"), J.as_string(value)), default=J.json_text(value)))


def _tonumber(value: exp.Expression, kind: exp.Expression) -> Num:
    return Num(J.case((_is_kind(kind, "VARCHAR"), exp.TryCast(this=J.as_string(value), to=exp.DataType.build("DOUBLE"))),
                      (_is_kind(kind, *J.NUMBER_TYPES), J.as_double(value))))


def _keys(value: exp.Expression, kind: exp.Expression) -> Val:
    return Val(J.case((_is_kind(kind, "OBJECT"), J.to_json(J.fn("list_sort", J.fn("json_keys", value))))))


def _truth_of_elements(aggregate: str, of_empty: bool) -> OnValue:
    """``any`` and ``all`` of an array: ``aggregate`` over its elements' truth, ``of_empty`` for ``[]``."""
    def on(value: exp.Expression, kind: exp.Expression) -> Bool:
        elements = _elements(value)
        element = J.new_lambda_name()
        truths = J.list_transform(elements, element, json_truthy(J.var(element)))
        combined = J.coalesce(J.fn(aggregate, truths), J.lit(of_empty))
        return Bool(J.case((_is_kind(kind, "ARRAY"), combined)))
    return on


def _add(value: exp.Expression, kind: exp.Expression) -> Val:
    """The sum of numbers, the concatenation of strings (nulls are skipped); other element kinds are errors."""
    elements = _elements(value)
    element = J.new_lambda_name()

    def every(*types: str) -> exp.Expression:
        test = J.is_type(J.var(element), *types, "NULL")
        return J.coalesce(J.fn("list_bool_and", J.list_transform(elements, element, test)), exp.true())

    numbers = J.list_transform(elements, element, J.as_double(J.var(element)))
    strings = J.list_transform(elements, element, J.case((J.is_type(J.var(element), "VARCHAR"), J.as_string(J.var(element)))))
    return Val(J.case(
        (J.coalesce(J.paren(J.not_(_is_kind(kind, "ARRAY"))), exp.true()), J.missing()),
        (every(), J.json_null()),
        (every(*J.NUMBER_TYPES), number_json(J.fn("list_sum", numbers))),
        (every("VARCHAR"), J.to_json(J.fn("array_to_string", strings, J.lit("")))),
    ))


# -- builtins with a literal argument --------------------------------------------------------
def _literal_argument(context: Context, node: Call) -> Literal:
    argument = node.args[0]
    if not isinstance(argument, Literal) or isinstance(argument.value, bool) or argument.value is None:
        raise context.fail(f"`{node.name}` needs a literal argument", argument)
    return argument


def _string_argument(context: Context, node: Call) -> str:
    argument = _literal_argument(context, node)
    if not isinstance(argument.value, str):
        raise context.fail(f"`{node.name}` needs a string argument", argument)
    return argument.value


def _regular_expression(context: Context, node: Call) -> str:
    pattern = _string_argument(context, node)
    problem = J.regex_problem(pattern)
    if problem is not None:
        raise context.fail(f"invalid regular expression: {problem}", node.args[0], hint=J.REGEX_HINT)
    return J.unicode_classes(pattern)


def _has(context: Context, node: Call, dot: Ref) -> Result:
    """``has(key)`` of an object, ``has(index)`` of an array."""
    key = _literal_argument(context, node).value
    if isinstance(key, str) and dot.base is None:
        found = J.not_null(context.doc.type(dot.path + (key,)))  # pre-extracted, no re-parse
        return context.let([Text(context.kind(dot))], lambda k: _only_on(k.expr, "OBJECT", found))
    return _with_value_and_kind(context, dot, lambda value, kind: _has_on(key, value, kind))


def _has_on(key: str | int, value: exp.Expression, kind: exp.Expression) -> Bool:
    if isinstance(key, str):
        found = J.not_null(J.fn("json_type", value, J.lit(J.path_string([key]))))
        return _only_on(kind, "OBJECT", found)
    inside = exp.LT(this=J.lit(int(key)), expression=J.fn("json_array_length", value))
    return _only_on(kind, "ARRAY", inside)


def _string_test(sql_function: str, read_argument: Callable[[Context, Call], str] = _string_argument) -> Builtin:
    """``test``, ``startswith`` and ``endswith``: ``sql_function(string, argument)`` of a string input."""
    def builtin(context: Context, node: Call, dot: Ref) -> Result:
        argument = read_argument(context, node)
        test = lambda value, kind: _only_on(kind, "VARCHAR", J.fn(sql_function, J.as_string(value), J.lit(argument)))  # noqa: E731
        return _with_value_and_kind(context, dot, test)
    return builtin


BUILTINS: dict[str, Builtin] = {
    "empty/0": _empty,
    "error/0": _error,
    "error/1": _error,
    "not/0": _not,
    "length/0": _on_value(_length),
    "type/0": _type,
    "has/1": _has,
    "test/1": _string_test("regexp_matches", _regular_expression),
    "startswith/1": _string_test("starts_with"),
    "endswith/1": _string_test("ends_with"),
    "ascii_downcase/0": _on_value(_string_function("lower")),
    "ascii_upcase/0": _on_value(_string_function("upper")),
    "tostring/0": _on_value(_tostring),
    "tonumber/0": _on_value(_tonumber),
    "select/1": _select,
    "map/1": _map,
    "add/0": _on_value(_add),
    "any/0": _on_value(_truth_of_elements("list_bool_or", False)),
    "any/1": _any_or_all_of_mapped,
    "all/0": _on_value(_truth_of_elements("list_bool_and", True)),
    "all/1": _any_or_all_of_mapped,
    "keys/0": _on_value(_keys),
    "first/0": _element_at(0),
    "last/0": _element_at(-1),
    # jq has no such builtins, but these have always compiled as `add`: kept so no recipe's SQL changes
    **dict.fromkeys(["has/0", "test/0", "startswith/0", "endswith/0", "select/0", "map/0"], _on_value(_add)),
}
"""Handlers by ``name/arity``."""

_SUPPORTED = " ".join(dict.fromkeys(key.split("/")[0] for key in BUILTINS))
