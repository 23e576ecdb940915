"""Property tests of the memmap packing (``max_size`` in tokens) and the reader that reads it back."""

from __future__ import annotations

import os
import tempfile

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dolma_sql.tokenizer import iter_documents
from dolma_sql.tokenizer.memmap import MemmapSeries
from dolma_sql.tokenizer.reading import TokenizedBatch


def make_batch(lengths: list[int], first_id: int) -> TokenizedBatch:
    lengths_array = np.asarray(lengths, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths_array)[:-1]]).astype(np.int64)
    tokens = (np.arange(int(lengths_array.sum())) % 60_000 + 1).astype("<u2")
    ids = [f"doc{first_id + i}" for i in range(len(lengths))]
    return TokenizedBatch(tokens, starts, lengths_array, ids, np.arange(1, len(lengths) + 1) + first_id, ["src.jsonl"] * len(lengths))


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=12), min_size=1, max_size=4),
    max_size=st.integers(min_value=1, max_value=60),
)
def test_packing_keeps_every_document_and_respects_max_size(batches, max_size):
    with tempfile.TemporaryDirectory() as directory:
        series = MemmapSeries(os.path.join(directory, "part-0"), max_size)
        written, first_id = [], 0
        for lengths in batches:
            batch = make_batch(lengths, first_id)
            written += [(doc_id, batch.tokens[s : s + n].tolist()) for doc_id, s, n in zip(batch.ids, batch.starts, batch.lengths)]
            series.write(batch)
            first_id += len(lengths)
        series.close()
        documents = list(iter_documents(directory))
        # every document once, in write order, with its tokens
        assert [(d.id, d.tokens.tolist()) for d in documents] == written
        per_file: dict[str, list[int]] = {}
        for document in documents:
            per_file.setdefault(document.memmap, []).append(len(document.tokens))
        for name, sizes in per_file.items():
            # under max_size tokens, as dolma (`written + len < max_size`), unless one oversized document alone
            assert sum(sizes) < max_size or len(sizes) == 1, (name, sizes, max_size)
        names = sorted(os.path.basename(path) for path in per_file)
        assert names == [f"part-0-{i:05d}.npy" for i in range(len(names))]
        assert not [name for name in os.listdir(directory) if name.endswith(".tmp")]
