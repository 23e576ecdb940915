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
