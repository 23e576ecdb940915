"""What a guard proves about the types of document values.

While compiling what runs only when a guard held (the right side of ``and``, a ``then``
branch), the types the guard proves (``type == "array"``, ``.[0] != null``) are known:
index steps they make safe need no error test and known types need no lookup.
"""

from __future__ import annotations

from dolma_sql.compile.jq.syntax import Binary, Call, Identity, Index, Literal, Node
from dolma_sql.compile.jq.values import KINDS_OF_TYPE, Ref

ANY_KIND = frozenset(kind for kinds in KINDS_OF_TYPE.values() for kind in kinds)

Facts = dict[tuple[str | int, ...], frozenset[str]]
"""Paths of the merged document -> the json_types their values can have, where a guard says so."""


def meet(a: Facts, b: Facts) -> Facts:
    """Both sets of facts at once."""
    return {path: a.get(path, ANY_KIND) & b.get(path, ANY_KIND) for path in a.keys() | b.keys()}


def tested_types(node: Node) -> tuple[str, ...] | None:
    """The json_types that ``type == "name"`` (either way round) accepts; None for any other node."""
    if not (isinstance(node, Binary) and node.op == "=="):
        return None
    for call, name in ((node.left, node.right), (node.right, node.left)):
        if isinstance(call, Call) and call.name == "type" and not call.args and isinstance(name, Literal) and name.value in KINDS_OF_TYPE:
            return KINDS_OF_TYPE[name.value]
    return None


def implied(node: Node, dot: Ref) -> Facts:
    """What ``node`` being truthy (on input ``dot``) proves about the types of document values."""
    if dot.base is not None:
        return {}
    if isinstance(node, Binary) and node.op == "and":
        return meet(implied(node.left, dot), implied(node.right, dot))
    if tested_types(node) is not None:
        return {dot.path: frozenset(tested_types(node))}
    if isinstance(node, Binary) and node.op == "!=":
        node = node.left if _is_null_literal(node.right) else node.right if _is_null_literal(node.left) else None
    steps = None if node is None else static_path(node)
    if not steps:
        return {}
    # a non-null value at the end of the path: every step before it indexed an array or object
    path = dot.path + steps
    facts = {path[:i]: frozenset({"ARRAY" if isinstance(path[i], int) else "OBJECT"}) for i in range(len(dot.path), len(path))}
    facts[path] = ANY_KIND - {"NULL"}
    return facts


def static_path(node: Node) -> tuple[str | int, ...] | None:
    """The steps of ``.a[0].b``-like paths (from the input), None for anything else."""
    if isinstance(node, Identity):
        return ()
    if isinstance(node, Index):
        prefix = static_path(node.target)
        return None if prefix is None else prefix + (node.key,)
    return None


def _is_null_literal(node: Node) -> bool:
    return isinstance(node, Literal) and node.value is None
