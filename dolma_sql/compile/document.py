"""How compiled filters read the merged document.

The mixer's relation has the raw JSON text of the document (``doc``) and of each line-aligned
attribute line (``attr_0`` …). Parsing JSON is the expensive part, so every static path a recipe
reads is registered here and extracted in ONE ``json_extract(column, [paths…])`` (and one
``json_type(column, [paths…])`` when types are needed) per source column, in an inner query. The
filters then index into those lists. Attribute keys are merged as upstream does: the last
attribute set holding the key wins, then the document's own ``attributes`` (when an object); a
JSON ``null`` value is a real value and overrides.
"""

from __future__ import annotations

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.jsonsql import Step

Path = tuple[Step, ...]

_MAP_TYPE = J.lit('"MAP(VARCHAR, JSON)"')


class Document:
    """Registry of the paths a recipe reads, handing out expressions over pre-extracted lists."""

    def __init__(self, n_attribute_sets: int) -> None:
        self.n_attribute_sets = n_attribute_sets
        self.sources = ["doc"] + [f"attr_{i}" for i in range(n_attribute_sets)]
        self._paths: dict[tuple[str, str], dict[str, int]] = {}
        self.attribute_keys: set[str] = set()

    # -- public lookups ------------------------------------------------------------------
    def value(self, path: Path) -> exp.Expression:
        """The JSON value at ``path`` of the merged document; SQL NULL when absent."""
        return self._merged("values", path)

    def type(self, path: Path) -> exp.Expression:
        """DuckDB's ``json_type`` of the value at ``path`` (``'OBJECT'``, ``'NULL'`` …); NULL when absent."""
        return self._merged("types", path)

    def is_object(self, path: Path) -> bool:
        """Whether the value at ``path`` is an object in every document (known at compile time)."""
        return path == () or (path == ("attributes",) and self.n_attribute_sets > 0)

    # -- the inner query ------------------------------------------------------------------
    def extraction(self) -> list[exp.Expression]:
        """The inner query's pre-extraction columns (``doc_values``, ``attr_0_types`` …)."""
        columns = []
        for (source, kind), paths in self._paths.items():
            function = "json_extract" if kind == "values" else "json_type"
            call = J.fn(function, exp.column(source), J.array(*[J.lit(p) for p in paths]))
            columns.append(exp.alias_(call, f"{source}_{kind}"))
        return columns

    def extracted_columns(self) -> list[str]:
        return [f"{source}_{kind}" for source, kind in self._paths]

    # -- internals ------------------------------------------------------------------------
    def _extract(self, kind: str, source: str, path: Path) -> exp.Expression:
        positions = self._paths.setdefault((source, kind), {})
        position = positions.setdefault(J.path_string(path), len(positions))
        return J.index(exp.column(f"{source}_{kind}"), position)

    def _merged(self, kind: str, path: Path) -> exp.Expression:
        if path[:1] == ("attributes",) and len(path) >= 2 and isinstance(path[1], str):
            self.attribute_keys.add(path[1])
        if path == ():
            return self._root(kind)
        if self.n_attribute_sets == 0 or path[0] != "attributes":
            return self._extract(kind, "doc", path)
        if len(path) == 1:
            return J.lit("OBJECT") if kind == "types" else self._merged_attributes()
        if isinstance(path[1], int):  # the merged attributes are an object: no positions
            return J.missing() if kind == "values" else J.cast(exp.Null(), "VARCHAR")
        newest_first = list(reversed(self.sources[1:]))
        if len(path) == 2:
            return J.coalesce(*[self._extract(kind, s, path) for s in newest_first], self._extract(kind, "doc", path))
        key_path = path[:2]
        return J.case(
            *[(J.not_null(self._extract("types", s, key_path)), self._extract(kind, s, path)) for s in newest_first],
            default=self._extract(kind, "doc", path),
        )

    def _as_map(self, value: exp.Expression) -> exp.Expression:
        return J.fn("json_transform", value, _MAP_TYPE)

    def _merged_attributes(self) -> exp.Expression:
        maps = [self._as_map(self._extract("values", source, ("attributes",))) for source in self.sources]
        merged = J.fn("map_concat", *maps)
        return J.coalesce(J.to_json(merged), J.json_literal({}))

    def _root(self, kind: str) -> exp.Expression:
        if kind == "types":
            return J.lit("OBJECT")
        whole = self._extract("values", "doc", ())
        if self.n_attribute_sets == 0:
            return whole
        attributes = J.fn("map", J.array(J.lit("attributes")), J.array(self._merged_attributes()))
        return J.to_json(J.fn("map_concat", self._as_map(whole), attributes))
