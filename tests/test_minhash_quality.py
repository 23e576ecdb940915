"""MinHash dedup quality at the default parameters, against brute-force Jaccard over the same shingles.

The corpus (tests/minhash_corpus.py) plants copies of base documents at known similarities, from 0.3
to 1.0; every pair of documents at Jaccard >= 0.3 is found exhaustively and compared exactly.
bench/minhash.py plots the same measures against similarity (docs/minhash-quality.png).
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from minhash_corpus import dolma_sql_result, generate, run_dolma_sql, shingles, words_of


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    corpus = generate(tmp_path_factory.mktemp("minhash") / "corpus", bases=1500, files=4, seed=0)
    report = run_dolma_sql(corpus, index=str(corpus.root / "index"))
    return corpus, report, dolma_sql_result(corpus)


def test_recall_and_precision_at_default_parameters(planted):
    corpus, _, result = planted
    quality = result.quality(corpus)
    assert quality.pairs(0.85) >= 300, "the corpus must plant enough close pairs to measure recall"
    assert quality.recall(0.85) >= 0.9, f"recall at Jaccard >= 0.85: {quality.recall(0.85):.3f} over {quality.pairs(0.85)} pairs"
    assert quality.removed_below(0.5) <= 0.05, (
        f"{quality.removed_below(0.5):.3f} of {len(result.removed)} removed documents have Jaccard < 0.5 to the one kept")
    # and it is not trivially satisfied: dissimilar pairs are mostly left apart
    assert quality.recall(0.0) < 0.9
    far = [found for similarity, found in zip(quality.pair_similarity, quality.pair_found) if similarity < 0.45]
    assert far and sum(far) / len(far) < 0.2


def test_every_cluster_keeps_one_document_and_removes_the_rest(planted):
    corpus, _, result = planted
    members: dict[object, list[str]] = {}
    for doc_id, cluster in result.cluster.items():
        members.setdefault(cluster, []).append(doc_id)
    assert all(len(ids) >= 2 for ids in members.values())
    assert len(result.removed) == sum(len(ids) - 1 for ids in members.values())
    position = {d.id: (d.file, d.line) for d in corpus.documents}
    for removed, kept in result.kept_for.items():
        assert result.cluster[removed] == result.cluster[kept]
        assert kept not in result.kept_for
        assert position[kept] == min(position[i] for i in members[result.cluster[removed]]), "keep.by first"


def test_lineage_similarity_estimates_the_exact_jaccard(planted):
    corpus, _, _ = planted
    lineage = pq.read_table(corpus.root / "attributes" / "minhash" / "lineage.parquet").to_pylist()
    errors = [abs(row["similarity"] - corpus.similarity(row["duplicate_id"], row["kept_id"])) for row in lineage]
    assert lineage
    # 112 minimums estimate J with a standard deviation of at most 0.047
    assert sum(errors) / len(errors) < 0.04, f"mean |estimated - exact| = {sum(errors) / len(errors):.3f}"


def test_signatures_count_the_shingles_the_ground_truth_uses(planted):
    """dolma-sql's shingles are the n-word windows of the documented normalisation, written again independently
    in minhash_corpus.words_of: the signature index records each document's number of shingles."""
    corpus, _, _ = planted
    counts = {}
    for path in (corpus.root / "index" / "signatures").glob("*.parquet"):
        table = pq.read_table(path, columns=["id", "shingles"]).to_pydict()
        counts.update(zip(map(json.loads, table["id"]), table["shingles"]))  # ids are kept as JSON text
    assert len(counts) == len(corpus.documents)
    for document in corpus.documents:
        words = len(words_of(document.text))
        assert counts[document.id] == max(words - corpus.ngram_length + 1, 1), document.id
        assert len(shingles(document.text)) <= counts[document.id]
