"""``random_number_v1``: a uniform [0, 1) number per document, for sampling with a mixer filter.

Upstream seeds Python's generator with the worker's pid, so numbers change between runs and
process counts. Here the number is a hash of ``(--seed, document id)``: the same document gets
the same number in every run, with any number of processes, in any file order.
"""

from __future__ import annotations

import numpy as np
import xxhash

from dolma_sql.tagging import Spans, TagBatch, tagger


@tagger("random_number_v1", types=["random"])
def random_number_v1(batch: TagBatch):
    # xxh3 (stable across versions and platforms) per id: ~0.1 µs each, negligible next to I/O
    prefix = f"{batch.seed}\x00".encode()
    hashes = np.fromiter(
        (xxhash.xxh3_64_intdigest(prefix + i.encode()) for i in batch.column("id").to_pylist()),
        dtype=np.uint64,
        count=len(batch),
    )
    return {"random": Spans.document(batch.lengths, (hashes >> np.uint64(11)).astype(np.float64) * 2.0**-53)}
