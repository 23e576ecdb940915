"""Parsing the jq subset into the syntax tree of ``syntax.py``, with a caret on bad or unsupported syntax."""

from __future__ import annotations

import json

from dolma_sql.compile.jq.lexer import Token, tokenize
from dolma_sql.compile.jq.syntax import COMPARISONS, Binary, Call, Collect, Identity, If, Index, Iterate, Literal, Negate, Node, Try
from dolma_sql.errors import CompileError

_KEYWORDS = {"if", "then", "elif", "else", "end", "and", "or", "try", "catch"}
_UNSUPPORTED_KEYWORDS = {"reduce", "foreach", "def", "as", "label", "import", "include", "__loc__"}


class _Parser:
    """Recursive descent over the tokens, one method per precedence level."""

    def __init__(self, text: str, config_path: str | None) -> None:
        self.text = text
        self.config_path = config_path
        self.tokens = tokenize(text, self.fail)
        self.i = 0

    def fail(self, message: str, position: int) -> CompileError:
        return CompileError(message, expression=self.text, position=position, path=self.config_path)

    @property
    def token(self) -> Token:
        return self.tokens[self.i]

    def at(self, *texts: str) -> bool:
        return self.token.kind in ("op", "ident") and self.token.text in texts

    def take(self) -> Token:
        token = self.token
        self.i += 1
        return token

    def expect(self, text: str) -> Token:
        if not self.at(text):
            found = self.token.text or "end of expression"
            raise self.fail(f"invalid jq: expected `{text}` but found `{found}`", self.token.position)
        return self.take()

    def parse(self) -> Node:
        node = self.pipe()
        if self.token.kind != "end":
            raise self.fail(f"invalid jq: unexpected `{self.token.text}`", self.token.position)
        return node

    def left_associative(self, ops: tuple[str, ...], operand) -> Node:
        left = operand()
        while self.at(*ops):
            token = self.take()
            left = Binary(token.position, token.text, left, operand())
        return left

    def right_associative(self, op: str, operand, this) -> Node:
        left = operand()
        if self.at(op):
            position = self.take().position
            return Binary(position, op, left, this())
        return left

    # precedence, loosest first: | , // or and (comparisons) + - * /
    def pipe(self) -> Node:
        return self.right_associative("|", self.comma, self.pipe)

    def comma(self) -> Node:
        return self.left_associative((",",), self.alternative)

    def alternative(self) -> Node:
        return self.right_associative("//", self.disjunction, self.alternative)

    def disjunction(self) -> Node:
        return self.left_associative(("or",), self.conjunction)

    def conjunction(self) -> Node:
        return self.left_associative(("and",), self.comparison)

    def comparison(self) -> Node:
        left = self.additive()
        if self.at(*COMPARISONS):
            token = self.take()
            left = Binary(token.position, token.text, left, self.additive())
            if self.at(*COMPARISONS):
                raise self.fail("invalid jq: comparisons do not chain; add parentheses", self.token.position)
        return left

    def additive(self) -> Node:
        return self.left_associative(("+", "-"), self.multiplicative)

    def multiplicative(self) -> Node:
        node = self.left_associative(("*", "/"), self.unary)
        if self.at("%"):
            raise self.fail("the `%` operator is not supported", self.token.position)
        return node

    def unary(self) -> Node:
        if self.at("-"):
            position = self.take().position
            return Negate(position, self.unary())
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while True:
            token = self.token
            if token.kind == "field":
                self.take()
                node = Index(token.position, node, token.text[1:])
            elif self.at(".") and self.tokens[self.i + 1].kind == "string":
                self.take()
                node = Index(token.position, node, self._string(self.take()))
            elif self.at(".") and self.tokens[self.i + 1].text == "[":
                self.take()
            elif self.at("["):
                node = self.bracket(node)
            elif self.at("?"):
                self.take()
                node = Try(token.position, node, None)
            else:
                return node

    def bracket(self, target: Node) -> Node:
        start = self.expect("[").position
        if self.at("]"):
            self.take()
            return Iterate(start, target)
        key = self.pipe()
        if self.at(":"):
            raise self.fail("slices `.[a:b]` are not supported in jq filters", self.token.position)
        self.expect("]")
        if isinstance(key, Negate) and isinstance(key.operand, Literal) and isinstance(key.operand.value, int):
            return Index(start, target, -key.operand.value)
        if isinstance(key, Literal) and isinstance(key.value, (str, int)) and not isinstance(key.value, bool):
            return Index(start, target, key.value)
        raise self.fail("only literal keys and integer indexes are supported inside `[...]`", key.position)

    def _string(self, token: Token) -> str:
        if "\\(" in token.text:
            raise self.fail("string interpolation `\\(...)` is not supported", token.position)
        try:
            return json.loads(token.text)
        except json.JSONDecodeError:
            raise self.fail("invalid jq: bad escape in string", token.position) from None

    def primary(self) -> Node:
        token = self.token
        if token.kind == "field":
            self.take()
            return Index(token.position, Identity(token.position), token.text[1:])
        if token.kind == "number":
            self.take()
            value = float(token.text) if any(c in token.text for c in ".eE") else int(token.text)
            return Literal(token.position, value)
        if token.kind == "string":
            self.take()
            return Literal(token.position, self._string(token))
        if self.at(".."):
            raise self.fail("recursive descent `..` is not supported", token.position)
        if self.at("."):
            self.take()
            if self.token.kind == "string":
                return Index(token.position, Identity(token.position), self._string(self.take()))
            return Identity(token.position)
        if self.at("("):
            self.take()
            node = self.pipe()
            self.expect(")")
            return node
        if self.at("["):
            self.take()
            if self.at("]"):
                self.take()
                return Collect(token.position, None)
            body = self.pipe()
            self.expect("]")
            return Collect(token.position, body)
        if self.at("{"):
            self.take()
            if not self.at("}"):
                raise self.fail("object construction `{...}` is not supported (only `{}`)", token.position)
            self.take()
            return Literal(token.position, {})
        if self.at("$"):
            raise self.fail("variables `$name` are not supported in jq filters", token.position)
        if token.kind == "ident":
            return self.word()
        raise self.fail(f"invalid jq: unexpected `{token.text or 'end of expression'}`", token.position)

    def word(self) -> Node:
        token = self.take()
        name = token.text
        if name in ("true", "false", "null"):
            return Literal(token.position, {"true": True, "false": False, "null": None}[name])
        if name == "if":
            return self.conditional(token.position)
        if name == "try":
            body = self.postfix()
            handler = None
            if self.at("catch"):
                self.take()
                handler = self.postfix()
            return Try(token.position, body, handler)
        if name in _UNSUPPORTED_KEYWORDS:
            raise self.fail(f"`{name}` is not supported in jq filters", token.position)
        if name in _KEYWORDS:
            raise self.fail(f"invalid jq: unexpected `{name}`", token.position)
        args = []
        if self.at("("):
            self.take()
            args.append(self.pipe())
            while self.at(";"):
                self.take()
                args.append(self.pipe())
            self.expect(")")
        return Call(token.position, name, tuple(args))

    def conditional(self, position: int) -> Node:
        branches = []
        condition = self.pipe()
        self.expect("then")
        branches.append((condition, self.pipe()))
        otherwise = None
        while True:
            if self.at("elif"):
                self.take()
                condition = self.pipe()
                self.expect("then")
                branches.append((condition, self.pipe()))
            elif self.at("else"):
                self.take()
                otherwise = self.pipe()
            else:
                self.expect("end")
                return If(position, tuple(branches), otherwise)


def parse(text: str, config_path: str | None = None) -> Node:
    """Parse a jq expression, raising ``CompileError`` with a caret on bad or unsupported syntax."""
    return _Parser(text, config_path).parse()
