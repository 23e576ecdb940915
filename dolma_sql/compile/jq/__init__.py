"""The jq subset dolma recipes use: parser and translation to DuckDB.

Values are DuckDB JSON expressions in which SQL NULL stands for a jq *error*; a filter that
errors on a row makes the mixer fail with the config path and the row (as upstream fails the
shard), unless a ``?``, ``try`` or ``//`` catches it. Expressions that yield several outputs
(``,``, ``.[]``, ``select``, ``empty``) become DuckDB lists.

Differences from upstream (jaq 1.2), on purpose: ``null | .key`` and ``null | .[0]`` give
``null`` as in real jq (upstream raises an error); regular expressions are RE2 (DuckDB);
ordering ``<`` between two arrays or two objects compares their JSON text; ``try`` over a
multi-output expression that fails drops all of its outputs.

Modules, from the text inwards: ``lexer`` and ``parser`` build the tree of ``syntax``; ``values``
are what compiled expressions are, ``facts`` what guards prove about them; ``context`` holds one
translation's state and conversions, which ``translate`` (a handler per node type), ``builtins``
(a handler per builtin) and ``operators`` use; ``scores`` compiles dolma's guarded score test
(``if type == "array" and … then .[0][2] < 0.8 else false end``) as JSONPath's rule.
"""

from dolma_sql.compile.jq.translate import JqCompiler

__all__ = ["JqCompiler"]
