"""The state of translating one jq expression, and the conversions between compiled values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.document import Document
from dolma_sql.compile.jq.facts import ANY_KIND, Facts, meet
from dolma_sql.compile.jq.syntax import Node
from dolma_sql.compile.jq.values import Bool, Many, Num, Opt, Ref, Result, Single, Text, Val, guard, is_simple, json_truthy, number_json
from dolma_sql.errors import CompileError


class Context:
    """One expression's document, source text and known type facts, and how its values become SQL.

    ``compile`` dispatches on the node's class through ``node_handlers``, which the translator
    sets, so the modules of handlers can compile sub-expressions without importing it.
    """

    node_handlers: ClassVar[Mapping[type[Node], Callable[[Context, Node, Ref], Result]]]

    def __init__(self, doc: Document, text: str, config_path: str | None) -> None:
        self.doc = doc
        self.text = text
        self.config_path = config_path
        self.facts: Facts = {}

    def compile(self, node: Node, dot: Ref) -> Result:
        """``node`` on the input ``dot``."""
        return self.node_handlers[type(node)](self, node, dot)

    # -- type facts ------------------------------------------------------------------------
    def under(self, facts: Facts, compile_):
        """``compile_()`` with ``facts`` known (only for code that runs when they hold)."""
        saved = self.facts
        self.facts = meet(saved, facts)
        try:
            return compile_()
        finally:
            self.facts = saved

    def _known_kind(self, path: tuple) -> str | None:
        kinds = self.facts.get(path)
        return next(iter(kinds)) if kinds is not None and len(kinds) == 1 else None

    # -- conversions -----------------------------------------------------------------------
    def fail(self, message: str, node: Node, hint: str | None = None) -> CompileError:
        return CompileError(message, expression=self.text, position=node.position, path=self.config_path, hint=hint)

    def ref_error(self, ref: Ref) -> exp.Expression | None:
        """Where stepping along ``ref.path`` hits a value that cannot be indexed that way."""
        checks = []
        for i, step in enumerate(ref.path):
            prefix = ref.path[:i]
            if ref.base is None and self.doc.is_object(prefix) and isinstance(step, str):
                continue
            allowed = ["ARRAY" if isinstance(step, int) else "OBJECT", "NULL"]
            if ref.base is None and self.facts.get(prefix, ANY_KIND) <= set(allowed):
                continue
            if ref.base is not None:
                kind = J.fn("json_type", ref.base, J.lit(J.path_string(prefix)))
                indexable = exp.In(this=kind, expressions=[J.lit(a) for a in allowed])
            elif self.doc.is_object(prefix):
                indexable = exp.false()  # a key step on an object was skipped above: this is an index step
            else:
                indexable = J.is_type(self.doc.value(prefix), *allowed)
            checks.append(J.coalesce(J.paren(exp.Not(this=indexable)), exp.false()))
        return J.or_(*checks) if checks else None

    def json(self, value: Single) -> exp.Expression:
        """The value as DuckDB JSON (SQL NULL = error)."""
        if isinstance(value, Val):
            return value.expr
        if isinstance(value, Bool):
            return J.to_json(value.expr)
        if isinstance(value, Num):
            return number_json(value.expr)
        if isinstance(value, Text):
            return J.to_json(value.expr)
        error = self.ref_error(value)
        present = self._ref_value(value)
        return present if error is None else J.case((error, J.missing()), default=present)

    def _ref_value(self, ref: Ref) -> exp.Expression:
        """The value at a reference when stepping there is no error (missing keys give null)."""
        if ref.base is None:
            raw = self.doc.value(ref.path)
        else:
            raw = J.fn("json_extract", ref.base, J.lit(J.path_string(ref.path))) if ref.path else ref.base
        return J.coalesce(raw, J.json_null()) if ref.path else raw

    def kind(self, value: Single) -> exp.Expression:
        """DuckDB's json_type of the value ('NULL' for jq null; SQL NULL = error)."""
        if isinstance(value, Bool):
            return guard(value.expr, J.lit("BOOLEAN"))
        if isinstance(value, Num):
            return guard(value.expr, J.lit("DOUBLE"))
        if isinstance(value, Text):
            return guard(value.expr, J.lit("VARCHAR"))
        if isinstance(value, Ref) and value.base is None:
            known = self._known_kind(value.path)
            kind = J.lit(known) if known is not None else J.coalesce(self.doc.type(value.path), J.lit("NULL"))
            error = self.ref_error(value)
            return kind if error is None else J.case((error, J.cast(exp.Null(), "VARCHAR")), default=kind)
        return J.json_type(self.json(value))

    def has_kind(self, value: Single, kinds: tuple[str, ...]) -> exp.Expression:
        """Whether ``kind(value)`` is one of ``kinds`` (NULL = error); read off the JSON text of a document value."""
        if isinstance(value, Ref) and value.base is None and self._known_kind(value.path) is None:
            test = J.is_type(J.coalesce(self.doc.value(value.path), J.json_null()), *kinds)
            error = self.ref_error(value)
            return test if error is None else J.case((error, exp.Null()), default=test)
        return exp.In(this=self.kind(value), expressions=[J.lit(k) for k in kinds])

    def truthy(self, value: Single) -> exp.Expression:
        """jq truthiness (only false and null are false); NULL on error."""
        if isinstance(value, Bool):
            return value.expr
        if isinstance(value, (Num, Text)):
            return guard(value.expr, exp.true())
        return json_truthy(self.json(value))

    def as_list(self, result: Result) -> exp.Expression:
        if isinstance(result, Many):
            return result.expr
        if isinstance(result, Opt):
            return J.case((J.is_null(result.expr), J.empty_json_list()), default=J.array(result.expr))
        value = self.json(result)
        return guard(value, J.array(value))

    def single(self, result: Result, node: Node, what: str) -> Single:
        if isinstance(result, (Opt, Many)):
            raise self.fail(f"{what} with several (or no) outputs is not supported", node)
        return result

    def let(self, values: list[Single], body) -> Result:
        """``body(*values)`` with computed values bound to lambda names, so SQL never duplicates them.

        A computed value used several times by an operator would otherwise be copied into the
        SQL each time, growing the query exponentially with nesting.
        """
        bound, bindings, guards = [], [], []
        for value in values:
            if isinstance(value, Ref):  # test its error once, outside, and use the plain value inside
                error = self.ref_error(value)
                if error is not None and value.base is None and value.path:  # a value found was reached without error
                    error = J.case((J.not_null(self.doc.value(value.path)), exp.false()), default=error)
                value = Val(self._ref_value(value))
                if error is not None:
                    guards.append(error)
            if is_simple(value.expr):
                bound.append(value)
            else:
                name = J.new_lambda_name()
                bound.append(type(value)(J.var(name)))
                bindings.append((name, value.expr))
        result = body(*bound)
        for name, source in reversed(bindings):
            # a node reachable twice (shared) is found twice, so a single use has one true parent
            expression = result.expr
            uses = [c for c in expression.find_all(exp.Column) if c.name == name and not c.table]
            if len(uses) == 1 and uses[0] is expression:
                result = type(result)(source)
            elif len(uses) == 1:  # used once: substitute instead of binding
                uses[0].replace(source)
                result = type(result)(expression)
            else:
                result = type(result)(J.index(J.list_transform(J.array(source), name, result.expr), 0))
        if guards:  # body results are strict: NULL (an error) where a guard holds
            if isinstance(result, Opt):
                result = Many(self.as_list(result))
            result = type(result)(J.case((J.or_(*guards), exp.Null()), default=result.expr))
        return result

    def pipe(self, left: Result, body) -> Result:
        """Run ``body`` (a function of the input value) on each output of ``left``."""
        if isinstance(left, Ref):
            return body(left)
        name = J.new_lambda_name()
        inner = body(Ref(J.var(name)))
        if isinstance(left, (Val, Bool, Num, Text)):
            value = self.json(left)
            if isinstance(inner, (Opt, Many)):
                bound = J.list_transform(J.array(value), name, guard(J.var(name), self.as_list(inner)))
                return Many(J.index(bound, 0))
            bound = J.list_transform(J.array(value), name, guard(J.var(name), self.json(inner)))
            return Val(J.index(bound, 0))
        lists = J.list_transform(self.as_list(left), name, self.as_list(inner))
        inner_name = J.new_lambda_name()
        failed = J.fn("list_contains", J.list_transform(lists, inner_name, J.is_null(J.var(inner_name))), exp.true())
        return Many(J.case((J.is_null(lists), exp.Null()), (failed, exp.Null()), default=J.fn("flatten", lists)))
