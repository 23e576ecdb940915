"""Properties of minhash signatures: a document's signature does not depend on the batch it is computed in,
the estimated Jaccard similarity is within a few standard errors of the exact one over the documented
shingles, normalisation is idempotent, and its shortcuts (NFKC only where a character may change, the
separator regex skipping lone spaces) give what the plain Arrow kernels give."""

from __future__ import annotations

import unicodedata

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from dolma_sql.deduper.minhash_signatures import Shingling, estimated_jaccard, nfkc, normalized, separator_runs, signatures_of

WORDS = st.sampled_from(["alpha", "Beta", "gamma,", "delta.", "ÉPSILON", "zeta", "eta!", "théta", "ﬁ", "42", "a-b"])
SPACES = st.sampled_from([" ", "  ", "\t", "\n", "\u00a0", "\u2003", "\x0b", "\x85", "\u3000", "\x1c"])
TEXTS = st.lists(st.tuples(WORDS, SPACES).map("".join), max_size=40).map("".join) | st.text(max_size=60)


def shingling(shingle: str = "words", n: int = 5, seed: int = 1, **normalize) -> Shingling:
    options = {"nfkc": True, "lowercase": True, "punctuation": True, "digits": False} | normalize
    return Shingling(shingle, n, 14, 8, seed, **options)


@settings(max_examples=40, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=12), st.data(), st.sampled_from(["words", "chars"]), st.integers(1, 6))
def test_a_signature_does_not_depend_on_the_batch(texts, data, shingle, n) -> None:
    options = shingling(shingle, n)
    whole_counts, whole = signatures_of(pa.array(texts, pa.large_string()), options)
    split = data.draw(st.integers(0, len(texts)))
    parts = [signatures_of(pa.array(part, pa.large_string()), options) for part in (texts[:split], texts[split:])]
    assert np.array_equal(whole, np.concatenate([part[1] for part in parts]))
    assert np.array_equal(whole_counts, np.concatenate([part[0] for part in parts]))


def reference_shingles(text: str, options: Shingling) -> set:
    """The documented shingles, written plainly: NFKC, lower-case, punctuation and symbols to spaces, whitespace
    folded; windows of n words (or characters); a shorter text is one shingle; an empty one has none."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in text)
    tokens = text.split() if options.shingle == "words" else list(" ".join(text.split()))
    if not tokens:
        return set()
    n = min(options.ngram_length, len(tokens))
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([f"w{i}" for i in range(30)]), min_size=8, max_size=80), st.data(), st.integers(0, 2**32))
def test_estimated_jaccard_is_near_the_exact_one(words, data, seed) -> None:
    edits = data.draw(st.lists(st.tuples(st.integers(0, len(words) - 1), st.sampled_from([f"v{i}" for i in range(30)])), max_size=20))
    other = list(words)
    for position, word in edits:
        other[position] = word
    options = shingling(n=3, seed=seed)
    first, second = " ".join(words), " ".join(other)
    a, b = reference_shingles(first, options), reference_shingles(second, options)
    exact = len(a & b) / len(a | b)
    counts, signatures = signatures_of(pa.array([first, second], pa.large_string()), options)
    assert list(counts) == [len(words) - 2, len(other) - 2]
    estimate = estimated_jaccard(signatures[:1], signatures[1:])[0]
    # 112 hash functions: standard error sqrt(J(1-J)/112) <= 0.048; five of them, and a little for collisions
    assert abs(estimate - exact) <= 5 * np.sqrt(exact * (1 - exact) / 112) + 0.02


@settings(max_examples=60, deadline=None)
@given(TEXTS, st.sampled_from(["words", "chars"]))
def test_the_shingle_count_follows_the_documented_rule(text, shingle) -> None:
    options = shingling(shingle, 3)
    tokens = reference_shingles(text, shingling(shingle, 1))
    counts, _ = signatures_of(pa.array([text], pa.large_string()), options)
    folded = unicodedata.normalize("NFKC", text).lower()
    folded = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in folded)
    length = len(folded.split()) if shingle == "words" else len(" ".join(folded.split()))
    assert counts[0] == (0 if not tokens else max(1, length - 2))


@settings(max_examples=60, deadline=None)
@given(TEXTS)
def test_normalisation_is_idempotent(text) -> None:
    options = shingling()
    once = normalized(pa.array([text], pa.large_string()), options)
    assert normalized(once, options).to_pylist() == once.to_pylist()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=30), st.integers(1, 64), st.integers(0, 2**32))
def test_minimums_are_those_of_each_document_alone(shingle_counts, chunk, seed) -> None:
    """Documents are mapped a chunk of whole documents at a time; each minimum is still its own document's."""
    from unittest import mock

    from dolma_sql.deduper import minhash_signatures

    options = shingling(seed=seed)
    counts = np.array(shingle_counts)
    hashes = np.random.default_rng(seed).integers(0, 2**64, counts.sum(), dtype=np.uint64, endpoint=False)
    with mock.patch.object(minhash_signatures, "CHUNK_SHINGLES", chunk):
        got = minhash_signatures.minhashes(counts, hashes, options)
    a, b = options.coefficients()
    bounds = np.concatenate([[0], np.cumsum(counts)])
    for row, (start, end) in enumerate(zip(bounds[:-1], bounds[1:])):
        expected = (hashes[start:end, None] * a + b).min(axis=0) if end > start else np.full(options.num_hashes, 2**64 - 1, np.uint64)
        assert np.array_equal(got[row], expected)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=20), st.integers(1, 6), st.integers(0, 2**32))
def test_shingles_are_the_windows_of_each_document(token_counts, n, seed) -> None:
    from dolma_sql.deduper.fingerprints import fingerprinter
    from dolma_sql.deduper.minhash_signatures import shingle_hashes

    counts = np.array(token_counts)
    tokens = np.random.default_rng(seed).integers(0, 2**64, counts.sum(), dtype=np.uint64, endpoint=False)
    shingles, hashes = shingle_hashes(counts, tokens, n)
    hasher, expected, first = fingerprinter(exact=False), [], 0
    for count in counts:
        width = min(n, count)
        starts = np.arange(first, first + count - width + 1) if count else np.zeros(0, np.int64)
        expected.append(hasher.windows(tokens[:, None], starts, width)[:, 0] if count else np.zeros(0, np.uint64))
        first += count
    assert list(shingles) == [len(part) for part in expected]
    assert np.array_equal(hashes, np.concatenate(expected))


NEIGHBOURS = ["{}", "a{}", "{}\u0301", "e{}\u0327", "\u1100{}", "{}\u1161", "\uac00{}", "{}\u3099", "{}{}", "x {} y"]
"""Every code point alone and next to characters it could compose or reorder with."""


def every_code_point_in(template: str, last: int = 0x10FFFF) -> pa.Array:
    points = (chr(point) for point in range(last + 1) if not 0xD800 <= point < 0xE000)
    return pa.array([template.format(char, char) for char in points], pa.large_string())


def test_nfkc_is_arrows_nfkc_for_every_code_point_and_neighbour() -> None:
    """The BMP (nfkc treats every other plane as possibly changing: Arrow decides there)."""
    for template in NEIGHBOURS:
        texts = every_code_point_in(template, last=0xFFFF)
        assert nfkc(texts).equals(pc.utf8_normalize(texts, "NFKC")), template


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8"), max_size=30) | TEXTS, min_size=1, max_size=8))
def test_nfkc_is_arrows_nfkc(texts) -> None:
    array = pa.array(texts, pa.large_string())
    assert nfkc(array).to_pylist() == pc.utf8_normalize(array, "NFKC").to_pylist()


def test_separator_runs_fold_like_one_run_pattern_for_every_code_point() -> None:
    whitespace = r"\s\x{0B}\x{1C}-\x{1F}\x{85}\p{Z}"
    for punctuation, plain in ((True, "[" + r"\p{P}\p{S}" + whitespace + "]+"), (False, "[" + whitespace + "]+")):
        for template in ("{}", "a{} b", "x{}\t{} ,"):
            texts = every_code_point_in(template)
            folded = pc.replace_substring_regex(texts, separator_runs(punctuation), " ")
            assert folded.equals(pc.replace_substring_regex(texts, plain, " ")), (punctuation, template)
