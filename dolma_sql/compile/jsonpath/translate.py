"""The translation of a parsed JSONPath expression to DuckDB SQL over the merged document."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.document import Document, Path
from dolma_sql.compile.jsonpath.parser import parse
from dolma_sql.compile.jsonpath.syntax import BoolOp, Compare, Condition, Exists, Indexes, Keys, Literal, Not, PathExpr, Segment, Slice, Wildcard
from dolma_sql.errors import CompileError


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
            problem = J.regex_problem(right.value)
            if problem is not None:
                raise CompileError(f"invalid regular expression: {problem}", expression=self.text, position=right.position, path=self.config_path, hint=J.REGEX_HINT)
            pattern = J.lit(J.unicode_classes(right.value))
        else:
            pattern_json = self._json(right, at)
            value = J.case((J.is_type(pattern_json, "VARCHAR"), value))
            pattern = J.as_string(pattern_json)
        return J.and_(J.is_type(value, "VARCHAR"), J.fn("regexp_matches", J.as_string(value), pattern))
