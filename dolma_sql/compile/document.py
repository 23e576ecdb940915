"""How compiled filters read the merged document.

The mixer's relation has the raw JSON text of the document (``doc``) and of each line-aligned
attribute line (``attr_0`` …). Parsing JSON is the expensive part, so every path a recipe reads
is registered here, and the query parses each raw column ONCE:

1. ``extracted``: ``json_extract(column, [paths…])`` per source column. From attribute lines
   only the value of each referenced key (``$.attributes.k``) is taken.
2. ``merged``: each referenced attribute key is merged across sources (the last attribute set
   holding the key wins, then the document's own ``attributes`` when it is an object; a JSON
   ``null`` is a real value and overrides) into a column ``key_<j>``. A deeper path into a key
   (``$.attributes.k[0][2]``) is extracted from every source too, in step 1, and taken from the
   source the key itself comes from (column ``key_<j>_<n>``): parsing the merged value again
   cost more.

Filters then index into those lists, whatever the number of rules. A value's type is read off its
extracted text (``J.json_type``), so types cost no parse of their own.
"""

from __future__ import annotations

import functools

from sqlglot import exp

from dolma_sql.compile import jsonsql as J
from dolma_sql.compile.jsonsql import Step

Path = tuple[Step, ...]

_MAP_TYPE = J.lit('"MAP(VARCHAR, JSON)"')


class _Lists:
    """Paths registered for one ``json_extract`` list, in order of first use."""

    def __init__(self, column: str) -> None:
        self.column = column
        self.positions: dict[Path, int] = {}  # in position order

    def get(self, path: Path) -> exp.Expression:
        return J.index(exp.column(self.column), self.positions.setdefault(tuple(path), len(self.positions)))

    def extract(self, source: exp.Expression) -> exp.Expression:
        paths = [J.lit(J.path_string(path)) for path in self.positions]
        return J.fn("json_extract", source, J.array(*paths))


_ID_FIRST = r'^\{"id":("[^"\\]*")'
"""A line that starts with its ``id``, a string without escapes (how dolma and its taggers write documents);
group 1 is the id's JSON text, as ``json_extract`` would write it."""


class Document:
    """Registry of the paths a recipe reads, handing out expressions over pre-extracted lists."""

    def __init__(self, n_attribute_sets: int) -> None:
        self.n_attribute_sets = n_attribute_sets
        self.sources = ["doc"] + [f"attr_{i}" for i in range(n_attribute_sets)]
        self._raw: dict[str, _Lists] = {}  # source -> its paths
        self._keys: dict[str, int] = {}  # merged attribute key -> j (column key_<j>)
        self._deep: dict[Path, str] = {}  # path deeper than a key -> its merged column
        self._lines: dict[str, None] = {}  # sources whose raw text is passed through, for checks that parse it again
        self.attribute_keys: set[str] = set()

    # -- public lookups ------------------------------------------------------------------
    def value(self, path: Path) -> exp.Expression:
        """The JSON value at ``path`` of the merged document; SQL NULL when absent."""
        if path[:1] == ("attributes",) and len(path) >= 2 and isinstance(path[1], str):
            self.attribute_keys.add(path[1])
        if path == ():
            return self._root()
        if self.n_attribute_sets == 0 or path[0] != "attributes":
            return self.raw_value("doc", path)
        if len(path) == 1:
            return self._merged_attributes()
        if isinstance(path[1], int):  # the merged attributes are an object: no positions
            return J.missing()
        j = self._keys.setdefault(path[1], len(self._keys))
        for source in self.sources:  # register the key in every source now, so columns exist
            self.raw_value(source, path[:2])
        if len(path) == 2:
            return exp.column(f"key_{j}")
        for source in self.sources:  # and the deeper path: extracting it costs less than parsing key_<j> again
            self.raw_value(source, path)
        return exp.column(self._deep.setdefault(path, f"key_{j}_{len(self._deep)}"))

    def type(self, path: Path) -> exp.Expression:
        """DuckDB's ``json_type`` of the value at ``path`` (``'OBJECT'``, ``'NULL'`` …); NULL when absent."""
        return J.lit("OBJECT") if self.is_object(path) else J.json_type(self.value(path))

    def raw_value(self, source: str, path: Path) -> exp.Expression:
        """The JSON value at ``path`` of one raw column (``doc``, ``attr_0`` …), no merging; NULL when absent."""
        return self._raw.setdefault(source, _Lists(f"{source}_values")).get(path)

    def reads(self, source: str, path: Path) -> bool:
        """Whether ``path`` of the raw column is already extracted (so testing it costs no parse)."""
        return source in self._raw and tuple(path) in self._raw[source].positions

    def raw_type(self, source: str, path: Path) -> exp.Expression:
        """DuckDB's ``json_type`` of ``path`` in the raw column, by parsing the line again.

        For checks needed on few rows (inside a CASE): extracting the value for every row would
        serialize it, which costs more than a second parse of those few lines.
        """
        self._lines.setdefault(source)
        return J.fn("json_type", exp.column(source), J.lit(J.path_string(path)))

    def attribute_keys_found(self, source: str) -> exp.Expression | None:
        """TRUE where the attribute line holds one of the recipe's keys (so its ``attributes`` is an object).

        Counts the found values of the whole extracted list and subtracts those of the paths outside
        the keys (such as ``id``; a path inside a key is found only where the key is): one pass over
        the list instead of a lookup per key. Build it after every path of ``source`` is registered.
        """
        lists = self._raw.get(source)
        if lists is None or not any(self._in_a_key(path) for path in lists.positions):
            return None
        column = exp.column(lists.column)
        outside = [J.cast(J.not_null(J.index(column, i)), "INTEGER") for path, i in lists.positions.items() if not self._in_a_key(path)]
        found_outside = functools.reduce(lambda a, b: exp.Add(this=a, expression=b), outside) if outside else J.lit(0)
        return exp.GT(this=J.fn("list_count", column), expression=found_outside)

    def _in_a_key(self, path: Path) -> bool:
        return len(path) >= 2 and path[0] == "attributes" and path[1] in self._keys

    def raw_present(self, source: str) -> exp.Expression:
        """Whether the raw column has a line at all (a missing attribute set is NULL). Register a path first."""
        return J.not_null(exp.column(self._raw[source].column))

    def is_object(self, path: Path) -> bool:
        """Whether the value at ``path`` is an object in every document (known at compile time)."""
        return path == () or (path == ("attributes",) and self.n_attribute_sets > 0)

    # -- the relation the filters read ------------------------------------------------------
    def relation(self) -> exp.Select:
        """``batch`` with every registered path extracted (the ``extracted`` and ``merged`` layers)."""
        raw = [J.alias(self._extraction(source, lists), lists.column) for source, lists in self._raw.items()]
        extracted = exp.select("row", *self._lines, *raw, copy=False).from_("batch", copy=False)
        merged_keys = [J.alias(self._merge_sources(key), f"key_{j}") for key, j in self._keys.items()]
        deep = [J.alias(self._merge_sources(path[1], path[2:]), column) for path, column in self._deep.items()]
        return exp.select("row", *self._passthrough(), *merged_keys, *deep, copy=False).from_(extracted.subquery("extracted", copy=False), copy=False)

    def columns(self) -> list[str]:
        """The columns of ``relation()`` besides ``row`` (named without building it)."""
        return [*self._passthrough(), *(f"key_{j}" for j in self._keys.values()), *self._deep.values()]

    # -- internals ------------------------------------------------------------------------
    def _extraction(self, source: str, lists: _Lists) -> exp.Expression:
        """The source's ``json_extract``; for the documents, skipped on lines that hold no ``attributes``.

        When the recipe reads nothing of the document but its ``id`` and its own ``attributes`` (the
        merge base), a line without the text ``"attributes"`` and without ``\\u`` escapes (which could
        spell that key) has none of those paths but the id, and a line that starts with its id needs
        no parse at all (documents are the long lines: the mix bench's query went from 147 to 137 ms
        per 10k documents, the jq one from 319 to 294).
        Documents are still parsed where they are checked (kept ones as they are decoded, dropped
        ones by the text check), so a malformed line is reported all the same.
        """
        extract = lists.extract(exp.column(source))
        if source != "doc" or not all(path == ("id",) or path[:1] == ("attributes",) for path in lists.positions):
            return extract
        doc = exp.column("doc")
        no_attributes = J.and_(J.not_(J.fn("contains", doc, J.lit('"attributes"'))), J.not_(J.fn("contains", doc, J.lit("\\u"))))
        if ("id",) not in lists.positions:
            return J.case((no_attributes, J.cast(exp.Null(), "JSON[]")), default=extract)
        id_text = J.cast(J.fn("regexp_extract", doc, J.lit(_ID_FIRST), J.lit(1)), "JSON")
        only_the_id = J.cast(J.array(*[id_text if path == ("id",) else exp.Null() for path in lists.positions]), "JSON[]")
        return J.case((J.and_(no_attributes, J.fn("regexp_matches", doc, J.lit(_ID_FIRST))), only_the_id), default=extract)

    def _passthrough(self) -> list[str]:
        return [*self._lines, *(lists.column for lists in self._raw.values())]

    def _merge_sources(self, key: str, inside: Path = ()) -> exp.Expression:
        """The value of attribute ``key`` (at ``inside`` it) from the newest attribute set holding the key, else the doc's."""
        held = ("attributes", key)
        newest_first = [f"attr_{i}" for i in reversed(range(self.n_attribute_sets))] + ["doc"]
        if not inside:
            return J.coalesce(*[self.raw_value(source, held) for source in newest_first])
        holders = [(J.not_null(self.raw_value(source, held)), self.raw_value(source, held + inside)) for source in newest_first[:-1]]
        return J.case(*holders, default=self.raw_value("doc", held + inside))

    def _as_map(self, value: exp.Expression) -> exp.Expression:
        return J.fn("json_transform", value, _MAP_TYPE)

    def _merged_attributes(self) -> exp.Expression:
        maps = [self._as_map(self.raw_value(source, ("attributes",))) for source in self.sources]
        return J.coalesce(J.to_json(J.fn("map_concat", *maps)), J.json_literal({}))

    def _root(self) -> exp.Expression:
        whole = self.raw_value("doc", ())
        if self.n_attribute_sets == 0:
            return whole
        attributes = J.fn("map", J.array(J.lit("attributes")), J.array(self._merged_attributes()))
        return J.to_json(J.fn("map_concat", self._as_map(whole), attributes))
