"""MinHash signatures of a batch of texts, vectorized: normalise (Arrow string kernels), cut into shingles and
hash each once (DuckDB ``hash`` of the words, combined per window), then every hash function is an affine map of
the shingle hashes followed by a segmented minimum per document (numpy), never a loop over documents.

Hash function ``i`` maps a shingle hash ``h`` to ``a_i * h + b_i`` modulo 2**64 with ``a_i`` odd: a bijection of
the 64-bit hashes (a permutation, as MinHash asks) whose high bits, which decide the minimum, are a
multiply-shift universal hash of ``h``. ``a`` and ``b`` come from the seed. A band's bucket is a 64-bit hash of
its ``band_size`` minimums.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dolma_sql.deduper.fingerprints import POLY, fingerprinter
from dolma_sql.text import fmix64

HASH_SCHEME = "dolma-sql-minhash/v1"
"""Stored in a signature index: an index made by another scheme is refused."""
CHAR_SALT = np.uint64(0x9E3779B97F4A7C15)
CONTROL_SPACES = r"\t\n\x{0B}\x{0C}\r\x{1C}-\x{1F}\x{85}"
"""The whitespace outside Unicode's separators (a regex class body)."""
WHITESPACE = CONTROL_SPACES + r"\p{Z}"
"""Unicode whitespace (a regex class body): the characters of Python's ``str.isspace`` (RE2's ``\\s`` is ASCII only)."""
PUNCTUATION = r"\p{P}\p{S}"
"""Unicode punctuation and symbols (a regex class body)."""


@dataclass(frozen=True)
class Shingling:
    """What shapes a document's signature (picklable; a signature index records it)."""

    shingle: str  # "words" | "chars"
    ngram_length: int
    num_bands: int
    band_size: int
    seed: int
    nfkc: bool
    lowercase: bool
    punctuation: bool
    digits: bool

    @property
    def num_hashes(self) -> int:
        return self.num_bands * self.band_size

    def coefficients(self) -> tuple[np.ndarray, np.ndarray]:
        """The multipliers (odd) and offsets of the hash functions."""
        rng = np.random.Generator(np.random.PCG64(self.seed))
        a = rng.integers(0, 2**64, self.num_hashes, dtype=np.uint64, endpoint=False) | np.uint64(1)
        b = rng.integers(0, 2**64, self.num_hashes, dtype=np.uint64, endpoint=False)
        return a, b


def normalized(texts: pa.Array, shingling: Shingling) -> pa.Array:
    """The texts after NFKC, lower-casing, punctuation and digit folding (each as configured, in this order),
    then every run of whitespace folded to one space and the ends trimmed (punctuation and whitespace in one pass)."""
    texts = texts.cast(pa.large_string())
    if shingling.nfkc:
        texts = nfkc(texts)
    if shingling.lowercase:
        texts = pc.utf8_lower(texts)
    if shingling.digits:  # digits are neither punctuation nor whitespace: folding them first changes nothing else
        texts = pc.replace_substring_regex(texts, r"\p{Nd}+", "0")
    return pc.utf8_trim(pc.replace_substring_regex(texts, separator_runs(shingling.punctuation), " "), " ")


def nfkc(texts: pa.Array) -> pa.Array:
    """Arrow's NFKC of the texts, computed only for those with a character outside :func:`nfkc_stable_class` (the
    others are already normalised: most web texts, whose non-ASCII characters are quotes, dashes and accents)."""
    unstable = pc.match_substring_regex(texts, f"[^{nfkc_stable_class()}]")
    if not pc.any(unstable).as_py():
        return texts
    return pc.replace_with_mask(texts, unstable, pc.utf8_normalize(texts.filter(unstable), "NFKC"))


@functools.cache
def nfkc_stable_class() -> str:
    """A regex class body of characters that no NFKC changes in any text made of them only: ASCII, and the assigned
    BMP characters that are NFKC alone, start no combining sequence (combining class 0, not a mark) and are not
    Hangul jamo (which compose with their neighbours). By the Unicode quick-check rule such a text is normalised;
    by Unicode's stability policy this holds in every later Unicode version too (an unassigned character, which a
    later version may give a decomposition, is outside the class)."""
    def stable(point: int) -> bool:
        char = chr(point)
        return (unicodedata.category(char) not in ("Mn", "Mc", "Me", "Cn", "Cs") and not 0x1100 <= point <= 0x11FF
                and unicodedata.combining(char) == 0 and unicodedata.is_normalized("NFKC", char))  # fmt: skip

    flags = np.array([True] * 0x80 + [stable(point) for point in range(0x80, 0x10000)], dtype=np.int8)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flags, [0]])))
    return "".join(rf"\x{{{first:X}}}-\x{{{end - 1:X}}}" for first, end in zip(edges[::2], edges[1::2]))


def separator_runs(punctuation: bool) -> str:
    """A regex matching every run of separators (whitespace, and punctuation if asked) except a lone space: replacing
    those runs by a space folds every run, and the lone spaces between words, most of the runs, are not matches
    (each match costs far more than scanning past). The lone separator that is not a space is either one of the
    control spaces (or punctuation) or a Unicode separator other than the space (``[^\\PZ\\x20]``)."""
    separators = f"{PUNCTUATION}{WHITESPACE}" if punctuation else WHITESPACE
    lone = f"{PUNCTUATION}{CONTROL_SPACES}" if punctuation else CONTROL_SPACES
    return rf"[{separators}]{{2,}}|[{lone}]|[^\PZ\x20]"


def tokens(texts: pa.Array, shingling: Shingling) -> tuple[np.ndarray, np.ndarray]:
    """Per document (normalised) its number of tokens, and every token's 64-bit hash in document order: the
    words between spaces, or the code points."""
    empty = pc.equal(texts, "").to_numpy(zero_copy_only=False)
    if shingling.shingle == "words":
        words = pc.split_pattern(texts, " ")
        counts = np.where(empty, 0, pc.list_value_length(words).to_numpy(zero_copy_only=False)).astype(np.int64)
        flat = pc.list_flatten(words)
        if empty.any():  # an empty text splits into one empty word; a normalised text has no other
            flat = flat.filter(pc.greater(pc.binary_length(flat), 0))
        return counts, fingerprinter(exact=False).raw(flat)[:, 0] if len(flat) else np.zeros(0, np.uint64)
    counts = pc.utf8_length(texts).to_numpy(zero_copy_only=False).astype(np.int64)
    points = np.frombuffer("".join(texts.to_pylist()).encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    return counts, fmix64(points ^ CHAR_SALT)


def shingle_hashes(counts: np.ndarray, token_hashes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per document its number of shingles and the 64-bit hash of every window of ``n`` consecutive tokens (a
    document with fewer tokens is one shingle of them all; one without tokens has none). A window's hash is
    ``fmix64(sum t_j * P^(n-1-j))``, rolled over the whole batch at once; the windows inside one document are kept."""
    firsts = np.cumsum(counts) - counts
    shingles = np.where(counts > 0, counts - np.minimum(counts, n) + 1, 0)
    offsets = np.cumsum(shingles) - shingles
    result = np.empty(int(shingles.sum()), dtype=np.uint64)
    windows = len(token_hashes) - n + 1
    short = np.flatnonzero((counts > 0) & (counts < n))
    if windows > 0:
        rolled = token_hashes[:windows].copy()
        for offset in range(1, n):
            rolled *= POLY
            rolled += token_hashes[offset : offset + windows]
        inside = np.ones(windows, dtype=bool)  # a window starting in a document's last n-1 tokens runs past its end
        ends = (firsts + counts)[counts > 0]
        for back in range(1, n):
            starts = ends - back
            inside[starts[(starts >= 0) & (starts < windows)]] = False
        slots = np.ones(len(result), dtype=bool)  # in document order, the kept windows fill all but the short documents' shingles
        slots[offsets[short]] = False
        result[slots] = fmix64(rolled[inside])
    hasher = fingerprinter(exact=False)
    for length in np.unique(counts[short]):  # the one shingle of each short document, by its length
        docs = short[counts[short] == length]
        result[offsets[docs]] = hasher.windows(token_hashes[:, None], firsts[docs], int(length))[:, 0]
    return shingles, result


CHUNK_SHINGLES = 1 << 15
"""Shingles mapped at a time (whole documents): the mapped hashes stay in the CPU cache across the hash functions."""


def minhashes(shingles: np.ndarray, hashes: np.ndarray, shingling: Shingling) -> np.ndarray:
    """``(documents, num_hashes)`` minimums of every hash function over each document's shingles (all ones
    for a document without shingles), a chunk of whole documents at a time."""
    a, b = shingling.coefficients()
    result = np.full((len(shingles), shingling.num_hashes), np.iinfo(np.uint64).max, dtype=np.uint64)
    present = np.flatnonzero(shingles > 0)
    if len(present) == 0:
        return result
    bounds = np.append((np.cumsum(shingles) - shingles)[present], len(hashes))
    cuts = np.unique(np.append(np.searchsorted(bounds, np.arange(0, len(hashes), CHUNK_SHINGLES)), len(present)))
    buffer = np.empty(min(len(hashes), int(np.diff(bounds[cuts]).max())), dtype=np.uint64)
    for first, last in zip(cuts[:-1], cuts[1:]):
        chunk = hashes[bounds[first] : bounds[last]]
        mapped = buffer[: len(chunk)]
        starts = bounds[first:last] - bounds[first]
        rows = present[first:last]
        for index in range(shingling.num_hashes):
            np.multiply(chunk, a[index], out=mapped)
            mapped += b[index]
            result[rows, index] = np.minimum.reduceat(mapped, starts)
    return result


def band_hashes(signatures: np.ndarray, shingling: Shingling) -> np.ndarray:
    """``(documents, num_bands)`` 64-bit buckets: each band's minimums combined and mixed."""
    bands = signatures.reshape(len(signatures), shingling.num_bands, shingling.band_size)
    combined = np.zeros((len(signatures), shingling.num_bands), dtype=np.uint64)
    for offset in range(shingling.band_size):
        combined *= POLY
        combined += bands[:, :, offset]
    return fmix64(combined)


def signatures_of(texts: pa.Array, shingling: Shingling) -> tuple[np.ndarray, np.ndarray]:
    """Per document: its number of shingles and its signature."""
    counts, token_hashes = tokens(normalized(texts, shingling), shingling)
    shingles, hashes = shingle_hashes(counts, token_hashes, shingling.ngram_length)
    return shingles, minhashes(shingles, hashes, shingling)


def estimated_jaccard(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Per row, the fraction of equal minimums of two signatures: an unbiased estimate of the Jaccard similarity."""
    return (left == right).mean(axis=1)
