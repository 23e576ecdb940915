"""The span replacement kernel: upstream's examples, its fixed defects, and a property test
against a plain-Python reference of the same rules."""

from __future__ import annotations

import msgspec
import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from dolma_sql.spans import SpanEdits, apply_spans, apply_spans_to_literals, split_template


def edits_for(spans: list[list[tuple[int, int, str]]]) -> tuple[SpanEdits, int]:
    """Edits for several texts: ``spans[i]`` are (start, end, replacement) of text i, in order."""
    templates: dict[tuple[str, ...], int] = {}
    rows, starts, ends, ids = [], [], [], []
    for row, text_spans in enumerate(spans):
        for start, end, replacement in text_spans:
            rows.append(row)
            starts.append(start)
            ends.append(end)
            ids.append(templates.setdefault(split_template(replacement), len(templates)))
    as_array = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return SpanEdits(as_array(rows), as_array(starts), as_array(ends), as_array(ids), list(templates)), len(spans)


def replace(text: str, spans: list[tuple[int, int]], replacement: str = "[A:{}]") -> str:
    edits, _ = edits_for([[(s, e, replacement) for s, e in spans]])
    return apply_spans(pa.array([text]), edits)[0].as_py()


def reference(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The rules in plain Python: clamp, stable sort by start, skip spans inside an applied one or at its start."""
    length = len(text)
    ordered = sorted(
        ((min(s, length), min(e, length), i, r) for i, (s, e, r) in enumerate(spans)), key=lambda item: (item[0], item[2])
    )
    out, cursor, applied_start, applied_end = [], 0, -1, -1
    for start, end, _, replacement in ordered:
        if start < applied_end or start == applied_start:
            continue
        out.append(text[cursor:start])
        out.append(text[start:end].join(replacement.split("{}")))
        applied_start, cursor, applied_end = start, end, end
    out.append(text[cursor:])
    return "".join(out)


TEXT = "0123456789"


def test_upstream_examples_that_are_not_defects():
    assert replace(TEXT, [(0, 3)]) == "[A:012]3456789"
    assert replace(TEXT, [(0, 10)]) == "[A:0123456789]"
    assert replace(TEXT, [(2, 5), (4, 8)]) == "01[A:234]56789"
    assert replace(TEXT, [(2, 8), (3, 4)]) == "01[A:234567]89"
    assert replace(TEXT, [(2, 5), (5, 8)]) == replace(TEXT, [(5, 8), (2, 5)]) == "01[A:234][A:567]89"
    assert replace(TEXT, [(8, 20)]) == "01234567[A:89]"
    assert replace("héllo wörld 😊 end", [(1, 4), (12, 13)]) == "h[A:éll]o wörld [A:😊] end"
    assert replace(TEXT, [(0, 2)], "<{}|{}>") == "<01|01>23456789"
    assert replace(TEXT, [(2, 5)], "") == "0156789"


def test_same_start_keeps_the_first_given():
    edits, _ = edits_for([[(2, 6, "[A:{}]"), (2, 4, "")]])
    assert apply_spans(pa.array([TEXT]), edits)[0].as_py() == "01[A:2345]6789"
    edits, _ = edits_for([[(2, 4, "[A:{}]"), (2, 6, "")]])
    assert apply_spans(pa.array([TEXT]), edits)[0].as_py() == "01[A:23]456789"


def test_empty_spans_at_one_position_follow_the_same_start_rule():
    """Of spans starting at one position only the first given applies, empty ones too (issue 18 item 12)."""
    edits, _ = edits_for([[(0, 0, "[short]"), (0, 0, "[]")]])
    assert apply_spans(pa.array([""]), edits)[0].as_py() == "[short]"
    edits, _ = edits_for([[(2, 2, "<a>"), (2, 2, "<b>"), (2, 5, "X")], [(2, 5, "X"), (2, 2, "<a>")]])
    assert apply_spans(pa.array([TEXT, TEXT]), edits).to_pylist() == ["01<a>23456789", "01X56789"]
    edits, _ = edits_for([[(0, 2, "A"), (2, 2, "<e>"), (2, 4, "B"), (4, 4, "<f>")]])  # adjacent spans apply, the later one at 2 does not
    assert apply_spans(pa.array([TEXT]), edits)[0].as_py() == "A<e>23<f>456789"


def test_empty_and_out_of_range_spans_never_duplicate_text():
    # upstream: "0123456789[A:0123456789]" and "01[A:]3456789[A:23456789]"
    assert replace(TEXT, [(12, 20)]) == "0123456789[A:]"
    assert replace(TEXT, [(2, 2)]) == "01[A:]23456789"
    assert replace("", [(0, 0)]) == "[A:]"


def test_texts_without_edits_are_untouched_and_rows_stay_aligned():
    edits, _ = edits_for([[], [(0, 1, "X")], [], [(1, 2, "")]])
    texts = pa.array(["keep", "abc", "ünïcode", "xyz"])
    assert apply_spans(texts, edits).to_pylist() == ["keep", "Xbc", "ünïcode", "xz"]


span_text = st.text(alphabet=st.sampled_from('ab \\"\n\t\x01\x1fé😊中\u0301\u2028'), max_size=30)
replacement = st.sampled_from(["", "X", "[{}]", "{}{}", "<é>", "{}", '<"\\\n>', "\x02{}"])
texts_with_spans = st.lists(
    st.tuples(span_text, st.lists(st.tuples(st.integers(0, 35), st.integers(0, 35), replacement), max_size=6)),
    min_size=1,
    max_size=6,
)


def texts_and_spans(cases) -> tuple[list[str], list[list[tuple[int, int, str]]]]:
    return [text for text, _ in cases], [[(min(s, e), max(s, e), r) for s, e, r in text_spans] for _, text_spans in cases]


@settings(max_examples=300, deadline=None)
@given(texts_with_spans)
def test_kernel_equals_reference(cases):
    texts, spans = texts_and_spans(cases)
    edits, _ = edits_for(spans)
    result = apply_spans(pa.array(texts), edits).to_pylist()
    assert result == [reference(text, text_spans) for text, text_spans in zip(texts, spans)]


@settings(max_examples=300, deadline=None)
@given(texts_with_spans, st.booleans())
def test_literals_are_edited_as_their_texts_are(cases, as_raw):
    """Texts edited as their JSON literals (escapes of one and of five bytes after the backslash, runs
    of escaped backslashes) come out as the literals msgspec writes for the edited texts."""
    texts, spans = texts_and_spans(cases)
    edits, _ = edits_for(spans)
    literals = [msgspec.json.encode(text) for text in texts]
    result = apply_spans_to_literals([msgspec.Raw(literal) for literal in literals] if as_raw else literals, edits)
    assert [bytes(literal) for literal in result] == [msgspec.json.encode(reference(text, text_spans)) for text, text_spans in zip(texts, spans)]
