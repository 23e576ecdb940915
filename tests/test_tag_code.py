"""Code taggers against a plain per-document statement of upstream's rules.

Upstream's own code taggers run end to end in ``test_tag_oracle.py`` (the oracle venv has
``dolma[code]``); here the two rule-based ones are compared with a direct Python transcription of the
rules in ``dolma/taggers/code/code_taggers.py`` (str.splitlines, str.isalnum/isalpha, the regex
tokenizer, the block-comment regex and the leading-comment-lines loop) on edge-case and code-like
texts, without the oracle.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import regex

from dolma_sql.formats.attributes import round_scores
from dolma_sql.tagging import TagBatch, get_tagger
from tag_helpers import edge_documents

CODE_TEXTS = [
    "", "/* Copyright 2020 X */\nint main() {}", "/* plain */\ncode", "# a\n# b\n\ncode\n# c", "x = 1\r\ny = 22\n",
    "héllo wörld 123\u2028next", "// MIT license\n// (c) someone\n#include <x>\n", "-- sql\nSELECT 1;", "\n\n\n",
    "/** COPYRIGHT **/ after /* copyright later */", "a\x0bb\x0cc\x1cd\x85e\r\n\rf",
]


def reference(text: str) -> dict[str, float | tuple]:
    lines = [len(line) for line in text.splitlines()]
    tokens = len(regex.split(r"\w+|[^\w\s]+", text))
    result = {
        "max_line_length_doc": float(max(lines, default=0.0)),
        "avg_line_length_doc": float(np.mean(lines)) if lines else 0.0,
        "alnum_prop_doc": sum(c.isalnum() for c in text) / len(text) if text else 0.0,
        "alpha_token_prop_doc": sum(c.isalpha() for c in text) / tokens if tokens else 0.0,
    }
    block = re.search(r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/", text)
    span = None
    if block:
        if re.search("copyright", block.group(), re.IGNORECASE):
            span = ("copyright_notice", *block.span())
    else:
        skip = end = 0
        for line in text.split("\n"):
            if line.startswith("//") or line.startswith("#") or line.startswith("--") or not line:
                skip += 1
                end += len(line) if line else 1
            else:
                break
        if skip:
            span = ("comment_block", 0, end)
    result["span"] = span
    result["doc"] = 0.0 if span is None else ((span[2] - span[1] + 1) / len(text) if text else -1.0)
    return result


def test_code_taggers_follow_upstreams_rules():
    texts = CODE_TEXTS + [d["text"] for d in edge_documents(150, seed=9)]
    table = pa.table({"text": pa.array(texts, pa.large_string())})
    stats = get_tagger("code_redpajama_taggers_v1").fn(TagBatch(table))
    copyright = get_tagger("code_copyright_comments_v1").fn(TagBatch(table))
    for row, text in enumerate(texts):
        want = reference(text)
        for key in ("max_line_length_doc", "avg_line_length_doc", "alnum_prop_doc", "alpha_token_prop_doc"):
            spans = stats[key]
            assert spans.ends[row] == len(text)
            assert round_scores(spans.scores[row : row + 1])[0] == round(want[key], 5), (text, key)
        found = [(kind, int(s.starts[i]), int(s.ends[i])) for kind in ("copyright_notice", "comment_block") if (s := copyright.get(kind))
                 for i in np.flatnonzero(s.rows == row)]
        assert found == ([want["span"]] if want["span"] else []), text
        assert round_scores(copyright["doc"].scores[row : row + 1])[0] == round(want["doc"], 5), text
