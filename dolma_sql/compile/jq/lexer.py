"""Splitting a jq expression into tokens."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from dolma_sql.errors import CompileError

_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<field>\.[A-Za-z_][A-Za-z0-9_]*)
      | (?P<number>\d+(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)
      | (?P<string>"(\\.|[^"\\])*")
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op>\.\.|//=|\|=|\+=|-=|\*=|/=|%=|==|!=|<=|>=|//|\?//|[.\[\](){}|,:;?<>+\-*/%=$@])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # field, number, string, ident, op, or end (after the last token)
    text: str
    position: int


def tokenize(text: str, fail: Callable[[str, int], CompileError]) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token; ``fail(message, position)`` makes the error to raise."""
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise fail(f"invalid jq: unexpected character `{text[pos]}`", pos)
        kind = match.lastgroup
        if kind != "space":
            tokens.append(Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens
