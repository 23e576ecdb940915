"""Key lengths counted in the hashing pass (``Fingerprinter.strings_and_lengths``) are Arrow's code-point lengths,
and the fingerprints beside them are the ones ``strings`` gives, for both kinds of fingerprint."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dolma_sql.deduper.fingerprints import fingerprinter

TEXTS = st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30) | st.sampled_from(["", "é", "👍🏽", "e\u0301", "🏳️‍🌈", "\u00a0\n"]), max_size=40)


@pytest.mark.parametrize("exact", [False, True], ids=["bloom", "exact"])
@settings(max_examples=60, deadline=None)
@given(texts=TEXTS, large=st.booleans())
def test_lengths_are_code_points_and_fingerprints_unchanged(exact: bool, texts: list[str], large: bool) -> None:
    strings = pa.array(texts, pa.large_string() if large else pa.string())
    hasher = fingerprinter(exact=exact)
    fingerprints, lengths = hasher.strings_and_lengths(strings)
    assert lengths.dtype == np.int64
    assert lengths.tolist() == pc.utf8_length(strings).to_pylist() == [len(text) for text in texts]
    assert np.array_equal(fingerprints, hasher.strings(strings))


SPACES = st.lists(st.text(alphabet=st.sampled_from([" ", "\t", "\n", "\x0b", "\x1c", "\x85", "\xa0", "\u2003", "\u3000", "\u200b", "a", "é", "\x00"]), max_size=6), max_size=40)


@settings(max_examples=100, deadline=None)
@given(texts=SPACES, large=st.booleans(), skip=st.integers(0, 3))
def test_all_space_is_arrows_utf8_is_space(texts: list[str], large: bool, skip: int) -> None:
    """Also on a slice (an array whose offsets do not start at its buffers' start)."""
    from dolma_sql.deduper.keys import all_space

    strings = pa.array(["x", "  ", "é"][:skip] + texts, pa.large_string() if large else pa.string()).slice(skip)
    assert all_space(strings).tolist() == pc.utf8_is_space(strings).to_pylist()
