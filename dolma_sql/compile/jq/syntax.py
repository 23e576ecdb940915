"""The syntax tree of the jq subset: one frozen dataclass per construct, each with its source position."""

from __future__ import annotations

from dataclasses import dataclass

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True)
class Node:
    position: int


@dataclass(frozen=True)
class Identity(Node):
    pass


@dataclass(frozen=True)
class Index(Node):
    target: Node
    key: str | int


@dataclass(frozen=True)
class Iterate(Node):
    target: Node


@dataclass(frozen=True)
class Literal(Node):
    value: object


@dataclass(frozen=True)
class Binary(Node):
    op: str  # | , // or and == != < <= > >= + - * /
    left: Node
    right: Node


@dataclass(frozen=True)
class Negate(Node):
    operand: Node


@dataclass(frozen=True)
class Collect(Node):
    body: Node | None


@dataclass(frozen=True)
class If(Node):
    branches: tuple[tuple[Node, Node], ...]
    otherwise: Node | None


@dataclass(frozen=True)
class Try(Node):
    body: Node
    handler: Node | None


@dataclass(frozen=True)
class Call(Node):
    name: str
    args: tuple[Node, ...]
