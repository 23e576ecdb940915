"""The SQL of the views over a :class:`~dolma_sql.views.corpus.Corpus` (templates in ``sql/views_*.sql``)."""

from __future__ import annotations

import importlib.resources
import os

from sqlglot import exp

from dolma_sql import storage
from dolma_sql.sql import fill, load_sql, render
from dolma_sql.views.corpus import Corpus


OBJECT_LIMIT_VARIABLE = "dolma_sql_maximum_object_size"
"""The DuckDB variable holding the views' longest accepted JSON line (views_object_limit.sql)."""

KEY_TYPES = {"spans": "DOUBLE[][]", "number": "DOUBLE", "json": "JSON"}


def _paths(paths) -> exp.Array:
    return exp.Array(expressions=[exp.Literal.string(path) for path in paths])


def _columns(pairs) -> exp.Struct:
    return exp.Struct(
        expressions=[exp.PropertyEQ(this=exp.to_identifier(name, quoted=True), expression=exp.Literal.string(kind)) for name, kind in pairs]
    )


def _readable(paths) -> exp.Array:
    """The files a view reads: zero-byte files are left out, since DuckDB rejects an empty ``.gz`` that every
    other command reads as an empty file; ``os.devnull`` stands in when none is left (a reader needs a file)."""
    return _paths([path for path in paths if storage.size(path)] or [os.devnull])


END_OF_FILES = str(importlib.resources.files("dolma_sql.sql") / "views_end.jsonl")
"""The line that ends the documents and every attribute set in the attributes view (views_attributes.sql)."""

def _aligned(paths) -> exp.Array:
    """:func:`_readable`, then :data:`END_OF_FILES`."""
    return exp.Array(expressions=[*_readable(paths).expressions, exp.Literal.string(END_OF_FILES)])


def object_limit() -> exp.Expression:
    return fill(load_sql("views_object_limit"), variable=exp.Literal.string(OBJECT_LIMIT_VARIABLE))


def documents_view(corpus: Corpus) -> str:
    view = fill(
        load_sql("views_documents"), files=_readable(corpus.documents), columns=_columns(corpus.document_columns), maximum_object_size=object_limit()
    )
    return render(view)


def attributes_view(corpus: Corpus) -> str:
    doc = lambda column: exp.column(column, table="d")  # noqa: E731
    end_file = exp.Literal.string(END_OF_FILES)
    view = load_sql("views_attributes")
    select = view.expression.args["from_"].this.this  # the inner SELECT ... AS joined
    checks, reasons = [], []
    for index, attribute_set in enumerate(corpus.attribute_sets):
        alias = f"a{index}"
        struct = exp.DataType(
            this=exp.DataType.Type.STRUCT,
            expressions=[exp.ColumnDef(this=exp.to_identifier(key.name, quoted=True), kind=exp.DataType.build(KEY_TYPES[key.kind])) for key in attribute_set.keys],
            nested=True,
        )
        columns = [("id", "VARCHAR"), ("attributes", struct.sql("duckdb") if attribute_set.keys else "JSON")]
        scan = fill(load_sql("views_attributes_set"), files=_aligned(attribute_set.files), columns=_columns(columns), maximum_object_size=object_limit())
        select.append("joins", exp.Join(this=exp.Subquery(this=scan, alias=exp.TableAlias(this=exp.to_identifier(alias))), method="POSITIONAL"))
        for key in attribute_set.keys:
            value = exp.Dot(this=exp.column("attributes", table=alias), expression=exp.to_identifier(key.name, quoted=True))
            if key.kind == "spans":
                value = fill(load_sql("views_span_column"), spans=value)
            select.select(exp.alias_(value, key.column, quoted=True), copy=False)
        set_id, set_file = exp.column("id", table=alias), exp.column("filename", table=alias)
        at_end = (exp.EQ(this=doc("file"), expression=end_file), exp.EQ(this=set_file, expression=end_file))
        agrees = exp.and_(exp.NullSafeEQ(this=doc("id"), expression=set_id), exp.NullSafeEQ(this=at_end[0], expression=at_end[1]))
        checks.append(agrees)
        reasons.append(
            fill(
                load_sql("views_attributes_mismatch"),
                aligned=agrees.copy(),
                doc_id=doc("id"),
                set_id=set_id,
                position=doc("position"),
                doc_file=doc("file"),
                set_file=set_file,
            )
        )
    aligned = exp.and_(*checks) if checks else exp.true()
    mismatch = exp.func("coalesce", *reasons) if reasons else exp.Literal.string("")
    view = fill(view, files=_aligned(corpus.documents), end_file=end_file, aligned=aligned, mismatch=mismatch, maximum_object_size=object_limit())
    return render(view)


def spans_view(corpus: Corpus) -> str:
    files = [path for attribute_set in corpus.attribute_sets for path in attribute_set.files]
    all_spans = all(key.kind == "spans" for attribute_set in corpus.attribute_sets for key in attribute_set.keys)
    value = exp.column("value", table="e")
    spans = value if all_spans else exp.TryCast(this=value, to=exp.DataType.build("DOUBLE[][]", dialect="duckdb"))
    columns = [("id", "VARCHAR"), ("attributes", "MAP(VARCHAR, DOUBLE[][])" if all_spans else "MAP(VARCHAR, JSON)")]
    owners = [(doc, attribute_set.name) for attribute_set in corpus.attribute_sets for doc in corpus.documents]
    file_map = exp.values([(path, *owner) for path, owner in zip(files, owners)], alias="m", columns=["attribute_file", "file", "set"])
    view = fill(load_sql("views_spans"), files=_readable(files), columns=_columns(columns), spans=spans, file_map=file_map, maximum_object_size=object_limit())
    return render(view)


def view_statements(corpus: Corpus) -> list[str]:
    """``CREATE OR REPLACE VIEW`` statements for every view the corpus has (spans only with span sets)."""
    statements = [documents_view(corpus)]
    if corpus.attribute_sets:
        statements.append(attributes_view(corpus))
        statements.append(spans_view(corpus))
    return statements
