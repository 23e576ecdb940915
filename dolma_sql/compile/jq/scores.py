"""dolma's guarded score test, compiled to the plan the JSONPath rule of the same meaning gets.

dolma's jq recipes test an attribute's score with

    .attributes.k | if type == "array" and length > 0 and .[0] != null and .[0][2] != null
                    then .[0][2] < 0.8 else false end

Wherever the compared value (``.attributes.k[0][2]``) is a number, every guard holds and no step
can fail, so the result is that number compared with the constant: one extracted value and a
cast, as JSONPath's rule. The other rows (a missing attribute, a score that is no number) get
what jq's guards give them (false at the first that fails, or jq's error), read off the score
and, for the error, the attribute's value parsed again: the query extracts no path for the guards
alone (``.[0]`` for ``.[0] != null`` was serialized on every row, from every source), and the rule
is a few plain CASE branches, which DuckDB plans in a fraction of the time the general
translation's lambdas take (it plans once per shard).
"""

from __future__ import annotations

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.jq.context import Context
from dolma_sql.compile.jq.facts import static_path, tested_types
from dolma_sql.compile.jq.syntax import COMPARISONS, Binary, Call, If, Literal, Negate, Node
from dolma_sql.compile.jq.values import Bool, Ref

Path = tuple[int, ...]

_TURNED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
_SQL = {"<": exp.LT, ">": exp.GT, "<=": exp.LTE, ">=": exp.GTE, "==": exp.EQ, "!=": exp.NEQ}


def guarded_score(context: Context, node: If, dot: Ref) -> Bool | None:
    """``node`` on the document value ``dot`` when it is dolma's guarded score test, else None.

    The form: ``if type == "array" [and length > 0] and .[i] != null and .[i][j] != null … then
    .[i][j]… OP NUMBER else false end``, a guard for every prefix of the compared path, in order.
    """
    if dot.base is not None or len(node.branches) != 1 or not _is_literal(node.otherwise, False):
        return None
    condition, comparison = node.branches[0]
    compared = _compared_path(comparison)
    if compared is None or not _guards_every_step(_conjuncts(condition), compared[0]):
        return None
    path, op, number = compared
    score = context.doc.value(dot.path + path)  # extracted with the recipe's other paths
    fast = _SQL[op](this=J.as_double(score), expression=J.lit(float(number)))  # NULL unless the score is a number
    return Bool(J.coalesce(fast, _step_by_step(context, dot, path, op, score)))  # COALESCE is lazy in DuckDB


def _step_by_step(context: Context, dot: Ref, path: Path, op: str, score: exp.Expression) -> exp.Expression:
    """The test where the score is no number, as jq runs it, in as few SQL terms as the query can plan quickly.

    Where the score is found, every value on its path is an array: only the last guard can fail
    (``null``), else the score is compared in jq's order of types. Where it is not, a guard is false,
    or ``.[i][j]`` indexes a value that is neither an array nor null (its own guard proved it is not
    null), an error: DuckDB finds that value only where every value before it is an array. NULL (an
    error) where ``dot`` itself cannot be reached.
    """
    error = context.ref_error(dot)
    value = context.doc.value(dot.path)
    whens = [] if error is None else [(error, exp.Null())]
    whens.append((J.not_null(score), _ranked(J.json_text(score), op)))
    for depth in range(1, len(path)):
        kind = J.fn("json_type", value, J.lit(J.path_string(path[:depth])))
        whens.append((J.not_(exp.In(this=kind, expressions=[J.lit("ARRAY"), J.lit("NULL")])), exp.Null()))
    return J.case(*whens, default=exp.false())


def _ranked(text: exp.Expression, op: str) -> exp.Expression:
    """``score op NUMBER`` for a score (its JSON text) that is no number (the caller compared those): jq
    orders null and booleans before numbers, strings, arrays and objects after them; null is no score."""
    if op in ("==", "!="):
        return exp.false() if op == "==" else exp.NEQ(this=text, expression=J.lit("null"))
    below = exp.In(this=text, expressions=[J.lit("true"), J.lit("false")])
    return below if op in ("<", "<=") else J.not_(exp.In(this=text, expressions=[J.lit("true"), J.lit("false"), J.lit("null")]))


def _conjuncts(condition: Node) -> list[Node]:
    """The operands of ``a and b and …``, in the order jq evaluates them."""
    if isinstance(condition, Binary) and condition.op == "and":
        return _conjuncts(condition.left) + _conjuncts(condition.right)
    return [condition]


def _guards_every_step(conjuncts: list[Node], path: Path) -> bool:
    """``type == "array"``, optionally ``length > 0``, then ``PREFIX != null`` for every prefix of ``path``."""
    if not conjuncts or tested_types(conjuncts[0]) != ("ARRAY",):
        return False
    rest = conjuncts[1:]
    if rest and _is_length_positive(rest[0]):
        rest = rest[1:]
    return [_not_null_path(c) for c in rest] == [path[:depth] for depth in range(1, len(path) + 1)]


def _compared_path(node: Node) -> tuple[Path, str, float] | None:
    """``(path, op, number)`` for ``.[i][j]… op NUMBER`` or ``NUMBER op .[i][j]…`` (turned round)."""
    if not (isinstance(node, Binary) and node.op in COMPARISONS):
        return None
    for side, other, op in ((node.left, node.right, node.op), (node.right, node.left, _TURNED[node.op])):
        path, number = static_path(side), _number(other)
        if path and number is not None and all(isinstance(s, int) and s >= 0 for s in path):
            return path, op, number
    return None


def _not_null_path(node: Node) -> tuple | None:
    """The path of ``PATH != null`` or ``null != PATH``."""
    if isinstance(node, Binary) and node.op == "!=":
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if _is_literal(other, None):
                return static_path(side)
    return None


def _is_length_positive(node: Node) -> bool:
    """``length > 0`` or ``0 < length``."""
    if not isinstance(node, Binary) or node.op not in (">", "<"):
        return False
    measured, zero = (node.left, node.right) if node.op == ">" else (node.right, node.left)
    return isinstance(measured, Call) and measured.name == "length" and not measured.args and _number(zero) == 0


def _number(node: Node | None) -> float | None:
    """The value of a number literal (negated or not)."""
    if isinstance(node, Negate):
        value = _number(node.operand)
        return None if value is None else -value
    if isinstance(node, Literal) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    return None


def _is_literal(node: Node | None, value: object) -> bool:
    return isinstance(node, Literal) and node.value is value
