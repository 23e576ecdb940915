"""dolma-sql's MinHash dedup against datatrove 0.10.1's four-stage pipeline on the same corpus.

datatrove runs in its own venv (``.datatrove``, built by .ci/run; ``$DOLMA_SQL_DATATROVE`` overrides)
with the same shingles, bands and hashes per band, and normalisation as close as its options allow
(docs/dedupe.md, "Compared with datatrove"). The two use different hash functions, so documents
near the LSH threshold are found by one and not the other by chance; the corpus plants copies mostly
away from the threshold (datatrove against itself with another seed agrees on about 99.2% of its
documents). The kept document is chosen the same way on both sides (the first by file and line),
since datatrove keeps whichever document its union-find made the root.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from minhash_corpus import datatrove_command, datatrove_result, dolma_sql_result, find_datatrove, generate, run_dolma_sql

pytestmark = pytest.mark.datatrove

SIMILARITIES = (0.3, 0.4, 0.5, 0.8, 0.85, 0.9, 0.95, 1.0)


@pytest.fixture(scope="module")
def datatrove():
    python = find_datatrove()
    if python is None:
        if os.environ.get("CI"):
            pytest.fail("CI must create the datatrove venv (.ci/run installs datatrove==0.10.1 into .datatrove)")
        pytest.skip('no datatrove venv (python -m venv .datatrove && .datatrove/bin/pip install "datatrove==0.10.1" orjson "xxhash<4" regex tokenizers)')
    return python


def test_removed_documents_agree_with_datatrove(datatrove, tmp_path):
    corpus = generate(tmp_path / "corpus", bases=2000, copied_fraction=0.2, similarities=SIMILARITIES, files=4, seed=1)
    work = tmp_path / "datatrove"
    proc = subprocess.run(datatrove_command(datatrove, "all", corpus.root / "documents", work), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    theirs = datatrove_result(corpus, datatrove, work)
    run_dolma_sql(corpus)
    ours = dolma_sql_result(corpus)

    documents = len(corpus.documents)
    disagreements = ours.removed ^ theirs.removed
    assert len(theirs.removed) > 0.1 * documents, "the corpus must make datatrove remove documents"
    assert 1 - len(disagreements) / documents >= 0.98, (
        f"{len(disagreements)} of {documents} documents removed by only one side "
        f"(dolma-sql {len(ours.removed)}, datatrove {len(theirs.removed)})")
    # the pairs datatrove finds close to certainly (planted at >= 0.9), dolma-sql finds too
    for pair in corpus.planted:
        if pair.similarity >= 0.9:
            assert ours.cluster.get(pair.copy) is not None and ours.cluster.get(pair.copy) == ours.cluster.get(pair.base)
