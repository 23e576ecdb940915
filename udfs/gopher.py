"""Gopher quality statistics (dolma ``taggers/gopher.py``), vectorized over the whole batch.

Words are ``str.split()`` tokens of every document laid end to end in one array, each known by its
index among the batch's distinct words (Arrow's dictionary encoding), so the per-word string tests run
once per distinct word. N-gram counts (n = 2..10) are hash joins of 64-bit hashes of those indices,
restricted level by level: an n-gram can only occur twice if both of its (n-1)-grams do, so after
the bigram pass only repeated material is hashed again. Ties for the most common n-gram go to the one seen first, as ``Counter.most_common``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.text import fmix64
from dolma_sql.udfs.text import split_on

REQUIRED_ENGLISH_WORDS = ["the", "be", "to", "of", "and", "that", "have", "with"]
SYMBOLS = "[#\u2026]"
"""A word holding ``#`` or ``…`` counts as a symbol."""
MOST_COMMON_N = (2, 3, 4)
DUPLICATE_N = (5, 6, 7, 8, 9, 10)
SCALAR_TYPES = (
    "character_count",
    "word_count",
    "median_word_length",
    "symbol_to_word_ratio",
    "fraction_of_words_with_alpha_character",
    "required_word_count",
    "fraction_of_lines_starting_with_bullet_point",
    "fraction_of_lines_ending_with_ellipsis",
    "fraction_of_duplicate_lines",
    "fraction_of_characters_in_duplicate_lines",
)
TYPES = (
    *(f"fraction_of_characters_in_most_common_{n}grams" for n in MOST_COMMON_N),
    *(f"fraction_of_characters_in_duplicate_{n}grams" for n in DUPLICATE_N),
    *SCALAR_TYPES,
)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _duplicated(keys: np.ndarray, rows: np.ndarray, chunk: int = 1 << 15) -> np.ndarray:
    """Which keys occur more than once. ``rows`` (ascending) never share keys, so the hash
    table is built per run of whole rows of about ``chunk`` keys, small enough to stay in cache."""
    out = np.zeros(len(keys), dtype=bool)
    cuts = np.unique(np.searchsorted(rows, rows[np.arange(chunk, len(rows), chunk)]))
    bounds = np.concatenate([[0], cuts, [len(keys)]])
    for start, stop in zip(bounds[:-1], bounds[1:]):
        if stop - start > 1:
            out[start:stop] = pl.Series(keys[start:stop], dtype=pl.UInt64).is_duplicated().to_numpy()
    return out


class _Words:
    """All words of a batch end to end: row, length in code points, distinct word and its hash, and each row's word span.

    Arrow's whitespace split uses exactly ``str.isspace``'s set; it leaves an empty piece at each end
    of a text that starts or ends with whitespace, which is dropped.
    """

    def __init__(self, texts: pa.Array) -> None:
        n_rows = len(texts)
        pieces = pc.utf8_split_whitespace(texts)
        flat = pc.list_flatten(pieces)
        lengths = pc.utf8_length(flat).to_numpy().astype(np.int64)
        nonempty = lengths > 0
        self.rows = pc.list_parent_indices(pieces).to_numpy().astype(np.int64)[nonempty]
        self.counts = np.bincount(self.rows, minlength=n_rows).astype(np.int64)
        self.lengths = lengths[nonempty]
        encoded = pc.dictionary_encode(flat.filter(pa.array(nonempty)))
        self.distinct = pl.Series(encoded.dictionary)
        """The batch's distinct words; word ``i`` is ``distinct[ids[i]]``."""
        self.ids = encoded.indices.to_numpy(zero_copy_only=False)
        self.hashes = fmix64(self.ids.astype(np.uint64) + _GOLDEN)  # a bijection: distinct words, distinct hashes
        self.row_start = np.cumsum(self.counts) - self.counts
        self.row_end = np.repeat(self.row_start + self.counts, self.counts)
        self.chars = np.bincount(self.rows, weights=self.lengths, minlength=n_rows).astype(np.int64)

    def count_per_row(self, flagged: pl.Series) -> np.ndarray:
        """How many words of each row are flagged, from a flag per distinct word."""
        return np.bincount(self.rows, weights=flagged.to_numpy()[self.ids], minlength=len(self.counts))


def _ngram_statistics(words: _Words, n_rows: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``type -> (score per row, present per row)`` for the most-common and duplicate n-gram fractions."""
    total = len(words.rows)
    cumulative = np.concatenate([[0], np.cumsum(words.lengths)]).astype(np.int64)
    twice = np.concatenate([[0], np.cumsum(cumulative)]).astype(np.int64)
    row_end = words.row_start + words.counts
    row_salt = fmix64(words.rows.astype(np.uint64) + _GOLDEN)
    denominator = np.maximum(words.chars, 1).astype(np.float64)
    # bigrams: every position, contiguous arrays
    with np.errstate(over="ignore"):
        hashes = fmix64(words.hashes[:-1] * _GOLDEN + words.hashes[1:]) if total > 1 else np.zeros(0, dtype=np.uint64)
    candidates = np.flatnonzero(np.arange(len(hashes)) + 2 <= words.row_end[: len(hashes)])
    keys = hashes[candidates] ^ row_salt[candidates]
    hashes = np.concatenate([hashes, np.zeros(1, dtype=np.uint64)])
    repeated_mask = np.zeros(total + 1, dtype=bool)
    results = {}
    for n in range(2, 11):
        if n > 2:  # an n-gram at i can repeat only if the (n-1)-grams at i and i+1 both do
            candidates = candidates[repeated_mask[candidates + 1]]
            candidates = candidates[candidates + n <= words.row_end[candidates]]
            with np.errstate(over="ignore"):
                hashes[candidates] = fmix64(hashes[candidates] * _GOLDEN + words.hashes[candidates + n - 1])
            keys = hashes[candidates] ^ row_salt[candidates]
        duplicated = _duplicated(keys, words.rows[candidates])
        repeated, repeated_keys = candidates[duplicated], keys[duplicated]
        repeated_mask[:] = False
        repeated_mask[repeated] = True
        present = words.counts >= n
        if n in MOST_COMMON_N:
            score = _most_common_fraction(words, n, repeated, repeated_keys, cumulative, denominator)
            results[f"fraction_of_characters_in_most_common_{n}grams"] = (score, present)
        else:
            # characters of all n-grams of a row: sum over starts i of cumulative[i+n] - cumulative[i]
            first, last = words.row_start[present], row_end[present] - n
            all_chars = np.zeros(n_rows, dtype=np.int64)
            all_chars[present] = (twice[last + n + 1] - twice[first + n]) - (twice[last + 1] - twice[first])
            dup_chars = np.bincount(words.rows[repeated], weights=cumulative[repeated + n] - cumulative[repeated], minlength=n_rows)
            results[f"fraction_of_characters_in_duplicate_{n}grams"] = (dup_chars / np.maximum(all_chars, 1), present)
        candidates = repeated
    return results


def _most_common_fraction(words: _Words, n: int, repeated, repeated_keys, cumulative, denominator) -> np.ndarray:
    """count x characters of the most common n-gram / characters in words, per row."""
    score = np.zeros(len(words.counts))
    present = words.counts >= n
    first = words.row_start[present]  # rows without a repeated n-gram: their first n-gram, seen once
    score[present] = (cumulative[first + n] - cumulative[first]) / denominator[present]
    if len(repeated):
        groups = (
            pl.DataFrame({"key": repeated_keys, "position": repeated})
            .group_by("key")
            .agg(pl.len().alias("count"), pl.col("position").min())
        )
        counts = groups["count"].to_numpy().astype(np.int64)
        first_seen = groups["position"].to_numpy()
        rows = words.rows[first_seen]
        order = np.lexsort((first_seen, -counts, rows))
        rows, counts, first_seen = rows[order], counts[order], first_seen[order]
        best = np.r_[True, rows[1:] != rows[:-1]]
        rows, counts, first_seen = rows[best], counts[best], first_seen[best]
        score[rows] = counts * (cumulative[first_seen + n] - cumulative[first_seen]) / denominator[rows]
    return score


def _line_statistics(series: pl.Series, n_rows: int, words: _Words, ignore_empty_lines: bool):
    rows, last, pieces = split_on(series, "\n")
    if ignore_empty_lines:  # re.split(r"\n+"): interior empty pieces vanish, the first and last stay
        first = np.r_[True, rows[1:] != rows[:-1]] if len(rows) else np.zeros(0, dtype=bool)
        keep = first | last | (pieces.str.len_bytes().to_numpy() > 0)
        rows, pieces = rows[keep], pieces.filter(pl.Series(keep))
    line_count = np.maximum(np.bincount(rows, minlength=n_rows), 1)
    bullets = np.bincount(rows, weights=pieces.str.contains(r"^[*\-]").to_numpy(), minlength=n_rows)
    ellipsis = np.bincount(rows, weights=pieces.str.ends_with("\u2026").to_numpy(), minlength=n_rows)
    repeated = pl.DataFrame({"row": rows, "line": pieces}).is_duplicated().to_numpy()
    repeated_lines = np.bincount(rows, weights=repeated, minlength=n_rows)
    repeated_chars = np.bincount(rows, weights=repeated * pieces.str.len_chars().to_numpy(), minlength=n_rows)
    return {
        "fraction_of_lines_starting_with_bullet_point": bullets / line_count,
        "fraction_of_lines_ending_with_ellipsis": ellipsis / line_count,
        "fraction_of_duplicate_lines": repeated_lines / line_count,
        "fraction_of_characters_in_duplicate_lines": repeated_chars / np.maximum(words.chars, 1),
    }


MEDIAN_BUCKETS = 32
"""Word lengths below this are counted per row to find medians; rows whose median is longer are sorted."""


def _median_word_length(words: _Words, n_rows: int) -> np.ndarray:
    """Median word length per row, from per-row counts of each length instead of sorting every word."""
    low_rank, high_rank = (words.counts - 1) // 2, words.counts // 2
    clipped = np.minimum(words.lengths, MEDIAN_BUCKETS)  # the last bucket holds every longer word
    counts = np.bincount(words.rows * (MEDIAN_BUCKETS + 1) + clipped, minlength=n_rows * (MEDIAN_BUCKETS + 1))
    below = np.cumsum(counts.reshape(n_rows, MEDIAN_BUCKETS + 1), axis=1)
    low = (below > low_rank[:, None]).argmax(axis=1)
    high = (below > high_rank[:, None]).argmax(axis=1)
    for row in np.flatnonzero(high == MEDIAN_BUCKETS):  # a median among the long words: sort that row's lengths
        lengths = np.sort(words.lengths[words.row_start[row] : words.row_start[row] + words.counts[row]])
        low[row], high[row] = lengths[low_rank[row]], lengths[high_rank[row]]
    return np.where(words.counts > 0, (low + high) / 2, 0.0)


def gopher_statistics(batch: TagBatch, *, ignore_empty_lines: bool):
    n_rows = len(batch)
    series = batch.series
    words = _Words(batch.text)
    word_count = np.maximum(words.counts, 1)

    scalars = {
        "character_count": batch.lengths.astype(np.float64),
        "word_count": words.counts.astype(np.float64),
        "median_word_length": _median_word_length(words, n_rows),
        "symbol_to_word_ratio": words.count_per_row(words.distinct.str.contains(SYMBOLS)) / word_count,
        "fraction_of_words_with_alpha_character": words.count_per_row(words.distinct.str.contains(r"\p{L}")) / word_count,
        "required_word_count": words.count_per_row(words.distinct.is_in(REQUIRED_ENGLISH_WORDS)),
        **_line_statistics(series, n_rows, words, ignore_empty_lines),
    }
    ngrams = _ngram_statistics(words, n_rows)
    # an empty text returns before any statistic is computed: every scalar is 0
    nonempty = batch.lengths > 0
    output = {}
    for name in TYPES:
        if name in ngrams:
            score, present = ngrams[name]
            output[name] = Spans.document(batch.lengths, score, where=present & nonempty)
        else:
            output[name] = Spans.document(batch.lengths, np.where(nonempty, scalars[name], 0.0))
    return output


@tagger("gopher_v1", types=TYPES)
def gopher_v1(batch: TagBatch):
    return gopher_statistics(batch, ignore_empty_lines=False)


@tagger("gopher_v2", types=TYPES)
def gopher_v2(batch: TagBatch):
    return gopher_statistics(batch, ignore_empty_lines=True)
