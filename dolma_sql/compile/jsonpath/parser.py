"""The parser of dolma's JSONPath subset (jsonpath-rust 0.3.5 grammar), with a caret under bad syntax."""

from __future__ import annotations

import re

from dolma_sql.compile.jsonpath.syntax import BoolOp, Compare, Condition, Exists, Filter, Indexes, Keys, Literal, Not, PathExpr, Segment, Slice, Wildcard
from dolma_sql.errors import CompileError


_KEY_CHARS = re.compile(r"[A-Za-z0-9_\-/\\#]+")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?")
_COMPARE_OPS = ("==", "!=", "<=", ">=", "<", ">", "~=")
_WORD_OPS = ("nin", "in", "size")
_UNSUPPORTED_WORD_OPS = ("noneOf", "anyOf", "subsetOf")


class _Parser:
    def __init__(self, text: str, config_path: str | None) -> None:
        self.text = text
        self.pos = 0
        self.config_path = config_path

    def fail(self, message: str, position: int | None = None) -> CompileError:
        position = self.pos if position is None else position
        return CompileError(message, expression=self.text, position=position, path=self.config_path)

    def peek(self, token: str) -> bool:
        return self.text.startswith(token, self.pos)

    def skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def expect(self, token: str) -> None:
        self.skip_spaces()
        if not self.peek(token):
            found = self.text[self.pos] if self.pos < len(self.text) else "end of expression"
            raise self.fail(f"invalid JSONPath: expected `{token}` but found `{found}`")
        self.pos += len(token)

    # path := '$' ['@'] segment* | '@' segment*
    def parse(self) -> PathExpr:
        self.skip_spaces()
        if not self.peek("$"):
            raise self.fail("invalid JSONPath: a path must start with `$` (for example `$.attributes.flag`)")
        path = self.path()
        self.skip_spaces()
        if self.pos != len(self.text):
            raise self.fail(f"invalid JSONPath: unexpected `{self.text[self.pos]}`")
        return path

    def path(self) -> PathExpr:
        start = self.pos
        root = self.text[self.pos]
        self.pos += 1
        if root == "$" and self.peek("@"):  # `$@.x` is accepted upstream and means `$.x`
            self.pos += 1
        segments = []
        while True:
            if self.peek(".."):
                raise self.fail("recursive descent `..` is not supported; write the full path instead")
            if self.peek("."):
                self.pos += 1
                segments.append(self.dot_segment())
            elif self.peek("["):
                segments.append(self.bracket_segment())
            else:
                return PathExpr(root, tuple(segments), start)

    def dot_segment(self) -> Segment:
        if self.peek("*"):
            self.pos += 1
            return Wildcard()
        match = _KEY_CHARS.match(self.text, self.pos)
        if not match:
            raise self.fail("invalid JSONPath: expected a key name after `.`")
        self.pos = match.end()
        if self.peek("("):
            raise self.fail(f"functions such as `{match.group()}()` are not supported", match.start())
        return Keys((match.group(),))

    def bracket_segment(self) -> Segment:
        self.pos += 1
        self.skip_spaces()
        if self.peek("*"):
            self.pos += 1
            self.expect("]")
            return Wildcard()
        if self.peek("?"):
            self.pos += 1
            self.expect("(")
            condition = self.condition()
            self.expect(")")
            self.expect("]")
            return Filter(condition)
        if self.peek("'") or self.peek('"'):
            names = [self.string()]
            while self.at(","):
                self.pos += 1
                self.skip_spaces()
                names.append(self.string())
            self.expect("]")
            return Keys(tuple(names))
        return self.index_or_slice()

    def index_or_slice(self) -> Segment:
        numbers: list[int | None] = [self.integer(optional=True)]
        self.skip_spaces()
        if self.peek(":"):
            while self.peek(":") and len(numbers) < 3:
                self.pos += 1
                numbers.append(self.integer(optional=True))
                self.skip_spaces()
            self.expect("]")
            start, end, step = (numbers + [None, None])[:3]
            if step == 0:
                raise self.fail("a slice step must be positive", self.pos - 1)
            return Slice(start or 0, end, step or 1)
        if numbers[0] is None:
            raise self.fail("invalid JSONPath: expected an index, a quoted key, `*` or `?(` after `[`")
        while self.peek(","):
            self.pos += 1
            numbers.append(self.integer(optional=False))
            self.skip_spaces()
        self.expect("]")
        return Indexes(tuple(numbers))

    def integer(self, optional: bool) -> int | None:
        self.skip_spaces()
        if self.peek("-"):
            raise self.fail("negative indexes are not supported (upstream rejects them too)")
        match = re.compile(r"\d+").match(self.text, self.pos)
        if not match:
            if optional:
                return None
            raise self.fail("invalid JSONPath: expected an index")
        self.pos = match.end()
        return int(match.group())

    def string(self) -> str:
        quote = self.text[self.pos] if self.pos < len(self.text) else ""
        if quote not in ("'", '"'):
            raise self.fail("invalid JSONPath: expected a quoted string")
        start = self.pos
        self.pos += 1
        chars = []
        while self.pos < len(self.text) and self.text[self.pos] != quote:
            if self.text[self.pos] == "\\" and self.pos + 1 < len(self.text):
                self.pos += 1
            chars.append(self.text[self.pos])
            self.pos += 1
        if self.pos >= len(self.text):
            raise self.fail("invalid JSONPath: unterminated string", start)
        self.pos += 1
        return "".join(chars)

    def at(self, token: str) -> bool:
        """Whether ``token`` comes next, after any spaces."""
        self.skip_spaces()
        return self.peek(token)

    # condition := and ('||' and)* ; and := unary ('&&' unary)* ; unary := '!' unary | atom
    def condition(self) -> Condition:
        return self.chain("||", self.conjunction)

    def conjunction(self) -> Condition:
        return self.chain("&&", self.unary)

    def chain(self, op: str, operand) -> Condition:
        operands = [operand()]
        while self.at(op):
            self.pos += len(op)
            operands.append(operand())
        return operands[0] if len(operands) == 1 else BoolOp(op, tuple(operands))

    def unary(self) -> Condition:
        self.skip_spaces()
        if self.peek("!") and not self.peek("!="):
            self.pos += 1
            return Not(self.unary())
        if self.peek("("):
            self.pos += 1
            inner = self.condition()
            self.expect(")")
            return inner
        left = self.operand()
        self.skip_spaces()
        op_position = self.pos
        op = self.operator()
        if op is None:
            return Exists(left)
        right = self.operand()
        if op in ("in", "nin") and not (isinstance(right, Literal) and isinstance(right.value, tuple)):
            raise self.fail(f"`{op}` needs a literal list on its right, e.g. `@.n in [1, 2]`", op_position)
        return Compare(op, left, right, op_position)

    def operator(self) -> str | None:
        for op in _COMPARE_OPS:
            if self.peek(op):
                self.pos += len(op)
                return op
        for word in _UNSUPPORTED_WORD_OPS:
            if self.peek(word):
                raise self.fail(f"the `{word}` operator is not supported; use `in`/`nin` or `&&`/`||`")
        for word in _WORD_OPS:
            if self.peek(word) and not self.text[self.pos + len(word) : self.pos + len(word) + 1].isalnum():
                self.pos += len(word)
                return word
        return None

    def operand(self) -> PathExpr | Literal:
        self.skip_spaces()
        start = self.pos
        if self.peek("@") or self.peek("$"):
            return self.path()
        if self.peek("'") or self.peek('"'):
            return Literal(self.string(), start)
        if self.peek("["):
            self.pos += 1
            values = []
            self.skip_spaces()
            while not self.peek("]"):
                item = self.operand()
                if not isinstance(item, Literal) or isinstance(item.value, tuple):
                    raise self.fail("a list may only hold literals", item.position)
                values.append(item.value)
                self.skip_spaces()
                if self.peek(","):
                    self.pos += 1
                    self.skip_spaces()
                elif not self.peek("]"):
                    raise self.fail("invalid JSONPath: expected `,` or `]` in a list")
            self.pos += 1
            return Literal(tuple(values), start)
        for word, value in (("true", True), ("false", False), ("null", None)):
            if self.peek(word):
                self.pos += len(word)
                return Literal(value, start)
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            text = match.group()
            return Literal(float(text) if any(c in text for c in ".eE") else int(text), start)
        raise self.fail("invalid JSONPath filter: expected `@`, `$`, a number, a quoted string, true, false or null")


def parse(text: str, config_path: str | None = None) -> PathExpr:
    """Parse a dolma JSONPath expression, raising ``CompileError`` with a caret on bad syntax."""
    return _Parser(text, config_path).parse()
