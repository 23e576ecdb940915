"""dolma's JSONPath subset (jsonpath-rust 0.3.5 grammar): parser and translation to DuckDB.

A path "matches" when it selects at least one value, whatever the value (``false``, ``0``,
``null`` count). Differences from upstream, on purpose: numbers compare by value (``1 == 1.0``
and ``1 >= 1.0`` are true; upstream says false), and double-quoted strings are accepted.
Not supported (compile-time errors): recursive descent ``..``, negative indexes (upstream rejects
them too), ``anyOf``/``noneOf``/``subsetOf``, and functions such as ``length()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.document import Document, Path
from dolma_sql.errors import CompileError

# ---------------------------------------------------------------------------------------------
# Syntax tree


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

# ---------------------------------------------------------------------------------------------
# Parser

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


# ---------------------------------------------------------------------------------------------
# Translation

_ORDERINGS = ("<", "<=", ">", ">=")


def _without_implied_tests(operands: tuple[Condition, ...]) -> tuple[Condition, ...]:
    """The operands of an ``&&`` without the existence tests another operand implies.

    In dolma's idiom ``@.x && @.x[0] && @.x[0][2] >= 0.5`` the comparison holds only where
    ``@.x[0][2]`` exists (an ordering is false on a missing value), and a path exists only where
    its prefixes do, so ``@.x`` and ``@.x[0]`` add nothing but two more JSON extractions per rule.
    Each operand compiles to a never-NULL condition, so dropping an implied one keeps the result.
    """
    compared = [
        side
        for operand in operands
        if isinstance(operand, Compare) and operand.op in _ORDERINGS
        for side in (operand.left, operand.right)
        if isinstance(side, PathExpr)
    ]

    def implied(operand: Condition) -> bool:
        if not isinstance(operand, Exists) or not isinstance(operand.operand, PathExpr):
            return False
        tested = operand.operand
        return any(path.root == tested.root and path.segments[: len(tested.segments)] == tested.segments for path in compared)

    return tuple(operand for operand in operands if not implied(operand))


@dataclass(frozen=True)
class One:
    """At most one node: ``path`` under ``base`` (the merged document when ``base`` is None)."""

    base: exp.Expression | None
    path: Path = ()
    condition: exp.Expression | None = None  # the node exists only where this holds

    def step(self, step) -> "One":
        return One(self.base, self.path + (step,), self.condition)

    def raw_value(self, doc: Document) -> exp.Expression:
        if self.base is None:
            return doc.value(self.path)
        return J.fn("json_extract", self.base, J.lit(J.path_string(self.path))) if self.path else self.base

    def value(self, doc: Document) -> exp.Expression:
        raw = self.raw_value(doc)
        return raw if self.condition is None else J.case((self.condition, raw))

    def type(self, doc: Document) -> exp.Expression:
        return doc.type(self.path) if self.base is None else J.json_type(self.raw_value(doc))

    def exists(self, doc: Document) -> exp.Expression:
        """Whether the node exists (never NULL)."""
        if self.base is None and doc.is_object(self.path):
            return self.condition if self.condition is not None else exp.true()
        present = J.not_null(self.raw_value(doc))
        return J.and_(self.condition, present) if self.condition is not None else present


@dataclass(frozen=True)
class Many:
    """Any number of nodes, as a DuckDB ``JSON[]`` without NULLs.

    ``exists``, when given, says more cheaply whether there is at least one node.
    """

    items: exp.Expression
    exists: exp.Expression | None = None


@dataclass
class JsonPathCompiler:
    """Translates one parsed path to SQL reading the merged document through ``doc``."""

    doc: Document
    text: str
    config_path: str | None = None
    _tree: PathExpr = field(init=False)

    def __post_init__(self) -> None:
        self._tree = parse(self.text, self.config_path)

    def matches(self) -> exp.Expression:
        """TRUE when the path selects at least one value (never NULL)."""
        nodes = self._nodes(self._tree, One(None))
        if isinstance(nodes, One):
            return nodes.exists(self.doc)
        if nodes.exists is not None:
            return nodes.exists
        return exp.GT(this=J.length(nodes.items), expression=J.lit(0))

    def select(self) -> exp.Expression:
        """The selected JSON: NULL for no match, the value for one, an array for several."""
        nodes = self._nodes(self._tree, One(None))
        if isinstance(nodes, One):
            return nodes.value(self.doc)
        items = nodes.items
        return J.case(
            (exp.EQ(this=J.length(items), expression=J.lit(0)), J.missing()),
            (exp.EQ(this=J.length(items), expression=J.lit(1)), J.index(items, 0)),
            default=J.to_json(items),
        )

    # -- node sets -------------------------------------------------------------------------
    def _nodes(self, path: PathExpr, start: One) -> One | Many:
        nodes: One | Many = start
        for segment in path.segments:
            if isinstance(nodes, One):
                nodes = self._on_one(segment, nodes)
            else:
                name = J.new_lambda_name()
                inner = self._on_one(segment, One(J.var(name)))
                if isinstance(inner, One):
                    body = inner.value(self.doc)
                    nodes = Many(J.present(J.list_transform(nodes.items, name, body)))
                else:
                    nodes = Many(J.fn("flatten", J.list_transform(nodes.items, name, inner.items)))
        return nodes

    def _on_one(self, segment: Segment, node: One) -> One | Many:
        if isinstance(segment, Keys) and len(segment.names) == 1:
            return node.step(segment.names[0])
        if isinstance(segment, Indexes) and len(segment.positions) == 1:
            return node.step(segment.positions[0])
        if isinstance(segment, (Keys, Indexes)):
            steps = segment.names if isinstance(segment, Keys) else segment.positions
            return Many(J.present(J.array(*[node.step(s).value(self.doc) for s in steps])))
        if isinstance(segment, Wildcard):
            return Many(J.children(node.value(self.doc)))
        if isinstance(segment, Slice):  # as upstream, an end past the array selects nothing
            elements = J.coalesce(J.fn("json_extract", node.value(self.doc), J.lit("$[*]")), J.empty_json_list())
            if segment.end is None:
                return Many(J.fn("list_slice", elements, J.lit(segment.start + 1), J.length(elements), J.lit(segment.step)))
            sliced = J.fn("list_slice", elements, J.lit(segment.start + 1), J.lit(segment.end), J.lit(segment.step))
            too_short = exp.GT(this=J.lit(segment.end), expression=J.length(elements))
            return Many(J.case((too_short, J.empty_json_list()), default=sliced))
        return self._filter(segment.condition, node)

    def _filter(self, condition: Condition, node: One) -> One | Many:
        """A filter tests each element of an array, or any other value (an object …) itself."""
        if node.base is None and self.doc.is_object(node.path):
            test = self._condition(condition, node)
            return One(None, node.path, test if node.condition is None else J.and_(node.condition, test))
        value = node.value(self.doc)
        name = J.new_lambda_name()
        object_test = self._condition(condition, node)  # the value itself when it is not an array
        on_array = J.list_filter(
            J.fn("json_extract", value, J.lit("$[*]")), name, self._condition(condition, One(J.var(name)))
        )
        kind = node.type(self.doc)
        is_array = exp.EQ(this=kind, expression=J.lit("ARRAY"))
        items = J.case(
            (is_array, on_array),
            (J.not_null(kind), J.case((object_test, J.array(value)), default=J.empty_json_list())),
            default=J.empty_json_list(),
        )
        exists = J.case(
            (is_array, exp.GT(this=J.length(on_array), expression=J.lit(0))),
            (J.not_null(kind), object_test),
            default=exp.false(),
        )
        return Many(items, J.coalesce(exists, exp.false()))

    # -- conditions ------------------------------------------------------------------------
    def _condition(self, condition: Condition, at: One) -> exp.Expression:
        if isinstance(condition, BoolOp):
            if condition.op == "||":
                return J.or_(*[self._condition(c, at) for c in condition.operands])
            return J.and_(*[self._condition(c, at) for c in _without_implied_tests(condition.operands)])
        if isinstance(condition, Not):
            return J.not_(self._condition(condition.operand, at))
        if isinstance(condition, Exists):
            if isinstance(condition.operand, Literal):
                return J.lit(condition.operand.value not in (None, False))
            return self._operand(condition.operand, at).exists(self.doc)
        return J.coalesce(J.paren(self._compare(condition, at)), exp.false())

    def _operand(self, operand: PathExpr, at: One) -> One:
        for segment in operand.segments:
            if isinstance(segment, Keys) and len(segment.names) == 1:
                continue
            if isinstance(segment, Indexes) and len(segment.positions) == 1:
                continue
            raise CompileError(
                "only plain keys and indexes (like `@.x[0][2]`) are supported in filter operands",
                expression=self.text,
                position=operand.position,
                path=self.config_path,
            )
        node = One(at.base, at.path) if operand.root == "@" else One(None)
        for segment in operand.segments:
            node = node.step(segment.names[0] if isinstance(segment, Keys) else segment.positions[0])
        return node

    def _compare(self, compare: Compare, at: One) -> exp.Expression:
        op, right = compare.op, compare.right
        if op in ("in", "nin"):
            found = J.or_(*[self._equal(compare.left, Literal(v, right.position), at) for v in right.value])
            found = found if right.value else exp.false()
            return found if op == "in" else J.not_(J.coalesce(J.paren(found), exp.false()))
        if op == "size":
            return self._size(compare, at)
        if op == "~=":
            return self._regex(compare, at)
        if op == "==":
            return self._equal(compare.left, right, at)
        if op == "!=":
            return J.not_(J.coalesce(J.paren(self._equal(compare.left, right, at)), exp.false()))
        less = self._less(compare.left, right, at) if op[0] == "<" else self._less(right, compare.left, at)
        return J.or_(less, self._equal(compare.left, right, at)) if op.endswith("=") else less

    def _json(self, operand: PathExpr | Literal, at: One) -> exp.Expression:
        if isinstance(operand, Literal):
            if isinstance(operand.value, tuple):
                raise CompileError("a list is only allowed after `in`/`nin`", expression=self.text,
                                   position=operand.position, path=self.config_path)
            return J.json_literal(operand.value)
        return self._operand(operand, at).value(self.doc)

    def _equal(self, left, right, at: One) -> exp.Expression:
        if isinstance(left, Literal) and not isinstance(right, Literal):
            left, right = right, left
        if isinstance(right, Literal) and (isinstance(right.value, bool) or right.value is None):
            text = J.lit({True: "true", False: "false", None: "null"}[right.value])
            return exp.EQ(this=J.json_text(self._json(left, at)), expression=text)
        if isinstance(right, Literal) and not isinstance(right.value, tuple):
            value = self._json(left, at)
            if isinstance(right.value, str):
                return J.and_(J.is_type(value, "VARCHAR"), exp.EQ(this=J.as_string(value), expression=J.lit(right.value)))
            return J.and_(J.is_number(value), exp.EQ(this=J.as_double(value), expression=J.lit(float(right.value))))
        return J.numbers_equal_or_same(self._json(left, at), self._json(right, at))

    def _less(self, left, right, at: One) -> exp.Expression:
        """Upstream's `<`: both sides single numbers, compared as f64."""
        sides = []
        for side in (left, right):
            if isinstance(side, Literal):
                if isinstance(side.value, bool) or not isinstance(side.value, (int, float)):
                    return exp.false()
                sides.append(J.lit(float(side.value)))
            else:
                value = self._json(side, at)
                sides.append(J.as_double(value))
        return exp.LT(this=sides[0], expression=sides[1])

    def _size(self, compare: Compare, at: One) -> exp.Expression:
        right = compare.right
        if not isinstance(right, Literal) or isinstance(right.value, bool) or not isinstance(right.value, (int, float)):
            return exp.false()
        if isinstance(compare.left, Literal):
            raise CompileError("`size` needs a path on its left", expression=self.text,
                               position=compare.position, path=self.config_path)
        value = self._json(compare.left, at)
        n = J.lit(int(right.value))
        kind = J.json_type(value)
        return J.case(
            (J.is_null(value), exp.true()),
            (exp.EQ(this=kind, expression=J.lit("VARCHAR")), exp.EQ(this=J.fn("strlen", J.as_string(value)), expression=n)),
            (exp.EQ(this=kind, expression=J.lit("ARRAY")), exp.EQ(this=J.fn("json_array_length", value), expression=n)),
            (exp.EQ(this=kind, expression=J.lit("OBJECT")), exp.EQ(this=J.length(J.fn("json_keys", value)), expression=n)),
            default=exp.false(),
        )

    def _regex(self, compare: Compare, at: One) -> exp.Expression:
        value = self._json(compare.left, at)
        right = compare.right
        if isinstance(right, Literal):
            if not isinstance(right.value, str):
                return exp.false()
            try:
                re.compile(right.value)
            except re.error as error:
                raise CompileError(f"invalid regular expression: {error}", expression=self.text,
                                   position=right.position, path=self.config_path) from None
            pattern = J.lit(right.value)
        else:
            pattern_json = self._json(right, at)
            value = J.case((J.is_type(pattern_json, "VARCHAR"), value))
            pattern = J.as_string(pattern_json)
        return J.and_(J.is_type(value, "VARCHAR"), J.fn("regexp_matches", J.as_string(value), pattern))
