"""``formats.documents.single_array``: a column of one chunk is that chunk, not a copy (texts are the
largest arrays every command holds); several chunks are joined in order."""

from __future__ import annotations

import pyarrow as pa

from dolma_sql.formats.documents import single_array


def test_one_chunk_is_returned_without_a_copy() -> None:
    chunk = pa.array(["a", "bb", None])
    array = single_array(pa.chunked_array([chunk]))
    assert array.buffers()[2].address == chunk.buffers()[2].address
    assert array.to_pylist() == ["a", "bb", None]


def test_several_chunks_are_joined_in_order() -> None:
    column = pa.chunked_array([pa.array(["a"]), pa.array([], pa.string()), pa.array(["b", "c"])])
    assert single_array(column).to_pylist() == ["a", "b", "c"]
    assert single_array(pa.chunked_array([], pa.string())).to_pylist() == []
