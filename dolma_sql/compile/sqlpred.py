"""``syntax: sql``: native DuckDB boolean expressions over the merged document (beyond dolma).

Names available in an expression:

- ``id``, ``text``, ``source``, ``added``, ``created``, ``version``: VARCHAR (a non-string value
  gives its JSON text; NULL when missing);
- ``metadata``, ``attributes``: JSON; ``metadata.<key>…``, ``attributes.<key>…`` and
  ``attributes['key']`` give the JSON value at that path (attribute keys merged as for the other
  syntaxes), NULL when missing. Cast JSON to compare it: ``CAST(metadata.length AS DOUBLE) < 500``,
  ``metadata.lang->>'$' = 'en'``;
- macros over a span list such as ``attributes.k``: ``score(x)`` (first span's score, DOUBLE),
  ``max_score(x)`` (largest score), ``span_count(x)`` (number of spans, 0 when missing).

Only expressions are accepted: no subqueries, table functions, statements or unknown names.
A NULL result counts as "no match".
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.document import Document
from dolma_sql.engine import sealed_connection
from dolma_sql.errors import CompileError

STRING_FIELDS = ("id", "text", "source", "added", "created", "version")
JSON_FIELDS = ("metadata", "attributes")
MACROS = ("score", "max_score", "span_count")

_ALLOWED_NODES = (
    exp.Column, exp.Identifier, exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.Tuple,
    exp.And, exp.Or, exp.Not, exp.Xor, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ,
    exp.NullSafeNEQ, exp.Is, exp.In, exp.Between, exp.Like, exp.ILike, exp.SimilarTo, exp.RegexpLike,
    exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Neg, exp.DPipe, exp.Cast, exp.TryCast,
    exp.DataType, exp.DataTypeParam, exp.Case, exp.If, exp.Bracket, exp.Array, exp.JSONExtract,
    exp.JSONExtractScalar, exp.JSONPath, exp.JSONPathRoot, exp.JSONPathKey, exp.JSONPathSubscript, exp.Var,
)
_ALLOWED_FUNCTIONS = {
    "lower", "upper", "length", "strlen", "char_length", "contains", "starts_with", "ends_with", "prefix",
    "suffix", "regexp_matches", "regexp_like", "regexp_full_match", "abs", "round", "floor", "ceil", "least",
    "greatest", "coalesce", "nullif", "ifnull", "json_extract", "json_extract_string", "json_extract_scalar",
    "json_type", "json_array_length", "json_exists", "json_keys", "len", "array_length", "list_contains",
    "array_contains", "strpos", "trim", "ltrim", "rtrim", "substring", "ln", "log", "sqrt", "concat",
    "if", "json_extract_path", "json_extract_path_text", *MACROS,
    "array_size", "str_position",  # sqlglot's names of array_length and strpos
}


class SqlPredicateCompiler:
    """Validates a SQL boolean expression and binds its names to the merged document."""

    def __init__(self, doc: Document, text: str, config_path: str | None = None) -> None:
        self.doc = doc
        self.text = text
        self.config_path = config_path
        self.tree = self._parse()
        for node in self.tree.walk():
            self._check(node)
        self._check_rendering()

    def fail(self, message: str, node: exp.Expression | None = None, position: int | None = None) -> CompileError:
        if position is None and node is not None:
            position = self._position(node)
        return CompileError(message, expression=self.text, position=position, path=self.config_path)

    def predicate(self) -> exp.Expression:
        """The bound predicate, FALSE where it is NULL; its types are checked with DuckDB's binder."""
        bound = J.coalesce(J.paren(self._bind(self.tree.copy(), self.doc)), exp.false())
        self._check_types()
        return bound

    # -- validation ------------------------------------------------------------------------
    def _parse(self) -> exp.Expression:
        try:
            statements = [s for s in sqlglot.parse(self.text, read="duckdb") if s is not None]
        except ParseError as error:
            detail = error.errors[0] if error.errors else {}
            position = self._offset(detail.get("line"), detail.get("col"))
            raise self.fail(f"invalid SQL expression: {detail.get('description', error)}", position=position) from None
        except SqlglotError as error:  # the tokenizer's: an unclosed quote or comment
            raise self.fail(f"invalid SQL expression: {str(error).splitlines()[0]}", position=None) from None
        if len(statements) != 1:
            raise self.fail("a SQL filter must be exactly one expression (no `;`)", position=self.text.find(";"))
        return statements[0]

    def _offset(self, line: int | None, col: int | None) -> int | None:
        if line is None or col is None:
            return None
        lines = self.text.split("\n")
        return sum(len(x) + 1 for x in lines[: line - 1]) + max(col - 1, 0)

    def _position(self, node: exp.Expression) -> int | None:
        """Where ``node`` starts in the text: its own token, a function's name, or its leftmost token."""
        if node.meta.get("start") is not None:
            return node.meta["start"]
        if isinstance(node, (exp.Select, exp.Subquery, exp.Exists, exp.Union)):
            found = self.text.lower().find("select")
            return found if found >= 0 else None
        if isinstance(node, exp.Func):
            found = self.text.lower().find(node.sql_name().lower())
            return found if found >= 0 else None
        starts = [n.meta["start"] for n in node.walk() if n.meta.get("start") is not None]
        return min(starts) if starts else None

    def _check(self, node: exp.Expression) -> None:
        if isinstance(node, (exp.Select, exp.Subquery, exp.Exists, exp.Union)):
            raise self.fail("subqueries are not allowed in a SQL filter", node)
        if isinstance(node, exp.Column):
            self._column_path(node)
            return
        if isinstance(node, exp.Anonymous) or (isinstance(node, exp.Func) and not isinstance(node, _ALLOWED_NODES)):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name not in _ALLOWED_FUNCTIONS:
                raise self.fail(f"function `{name}` is not allowed in a SQL filter", node)
            if name in MACROS and len(node.expressions) != 1:
                raise self.fail(f"`{name}` takes one argument, e.g. {name}(attributes.k)", node)
            return
        if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.USERDEFINED:
            name = node.args.get("kind") or node.sql(dialect="duckdb")
            found = self.text.find(str(name))
            raise self.fail(f"unknown type `{name}` in a SQL filter: cast to one of DuckDB's own, e.g. DOUBLE", position=found if found >= 0 else None)
        if not isinstance(node, _ALLOWED_NODES):
            what = type(node).__name__.upper()
            raise self.fail(f"`{what}` is not allowed in a SQL filter: only expressions over the document", node)

    def _check_rendering(self) -> None:
        """The SQL written from the checked tree must read back as one expression that is written the same way: text that
        some node writes out as it came, and that would then be read as more SQL, is refused even where the checks above
        missed it (sqlglot's own rewrites, ``IF`` to ``CASE`` say, are a fixed point)."""
        written = self.tree.sql(dialect="duckdb")
        try:
            again = [tree for tree in sqlglot.parse(written, read="duckdb") if tree is not None]
        except SqlglotError:
            again = []
        if len(again) != 1 or again[0].sql(dialect="duckdb") != written:
            raise self.fail("this SQL filter does not read back as the one expression it was checked as", position=0)

    def _column_path(self, column: exp.Column) -> tuple[str, ...]:
        parts = tuple(part.name for part in column.parts)
        if parts[0] in STRING_FIELDS and len(parts) == 1:
            return parts
        if parts[0] in JSON_FIELDS:
            return parts
        known = ", ".join(STRING_FIELDS + JSON_FIELDS)
        raise self.fail(f"unknown name `{'.'.join(parts)}`; available: {known}, metadata.<key>, attributes.<key>", column)

    # -- binding ---------------------------------------------------------------------------
    def _bind(self, tree: exp.Expression, doc: Document) -> exp.Expression:
        def bind(node: exp.Expression) -> exp.Expression:
            path = self._json_path(node)
            if path is not None:
                value = doc.value(path)
                return J.as_string(value) if path[0] in STRING_FIELDS else value
            if isinstance(node, exp.Anonymous) and node.name.lower() in MACROS:
                return span_macro(node.name.lower(), self._bind(node.expressions[0], doc))
            return node

        return tree.transform(bind)

    def _json_path(self, node: exp.Expression) -> tuple | None:
        if isinstance(node, exp.Column):
            return self._column_path(node)
        if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
            inner = self._json_path(node.this)
            key = node.expressions[0]
            if inner is not None and inner[0] in JSON_FIELDS:
                if not (isinstance(key, exp.Literal) and key.is_string):
                    raise self.fail("use a quoted key in brackets, e.g. attributes['my key']", node)
                return inner + (key.this,)
        return None

    def _check_types(self) -> None:
        """Bind the predicate alone against an empty ``batch`` so type errors name the rule."""
        doc = Document(self.doc.n_attribute_sets)
        predicate = self._bind(self.tree.copy(), doc)
        query = exp.select(exp.alias_(J.coalesce(J.paren(predicate), exp.false()), "keep")).from_(doc.relation().subquery("x"))
        query = J.parenthesize(query.copy())
        schema = pa.schema([("row", pa.int64())] + [(source, pa.string()) for source in doc.sources])
        connection = sealed_connection()
        try:
            connection.register("batch", schema.empty_table())
            connection.execute(query.sql(dialect="duckdb"))
        except duckdb.Error as error:
            raise self.fail(f"invalid SQL filter: {str(error).splitlines()[0]}", position=0) from None
        finally:
            connection.close()


def span_macro(name: str, spans: exp.Expression) -> exp.Expression:
    """One of ``MACROS`` applied to ``spans``, a JSON list of [start, end, score]; ``sql`` and ``shell`` define theirs from it too."""
    if name == "score":
        return J.as_double(J.fn("json_extract", spans, J.lit("$[0][2]")))
    if name == "max_score":
        return J.fn("list_max", exp.TryCast(this=J.fn("json_extract", spans, J.lit("$[*][2]")), to=exp.DataType.build("DOUBLE[]")))
    return J.coalesce(J.fn("json_array_length", spans), J.lit(0))
