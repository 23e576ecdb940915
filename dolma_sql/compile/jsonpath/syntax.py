"""The syntax tree of a dolma JSONPath expression, as :mod:`.parser` builds it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Keys:
    names: tuple[str, ...]


@dataclass(frozen=True)
class Indexes:
    positions: tuple[int, ...]


@dataclass(frozen=True)
class Wildcard:
    pass


@dataclass(frozen=True)
class Slice:
    start: int
    end: int | None
    step: int


@dataclass(frozen=True)
class Filter:
    condition: "Condition"


Segment = Keys | Indexes | Wildcard | Slice | Filter


@dataclass(frozen=True)
class PathExpr:
    root: str  # "$" or "@"
    segments: tuple[Segment, ...]
    position: int


@dataclass(frozen=True)
class Literal:
    value: object  # None, bool, int, float, str, or a tuple of those (for `in`)
    position: int


@dataclass(frozen=True)
class Compare:
    op: str
    left: PathExpr | Literal
    right: PathExpr | Literal
    position: int


@dataclass(frozen=True)
class Exists:
    operand: PathExpr | Literal


@dataclass(frozen=True)
class Not:
    operand: "Condition"


@dataclass(frozen=True)
class BoolOp:
    op: str  # "&&" or "||"
    operands: tuple["Condition", ...]


Condition = Compare | Exists | Not | BoolOp
