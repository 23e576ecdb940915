"""A cache-line-blocked Bloom filter over 64-bit key fingerprints, in numpy, with a versioned file format.

Why not upstream's filter: its bits depend on randomly seeded ``ahash`` hashers (files are not
portable and partitions are random), its number of hash functions is sized for the *size*, not
the target rate (5,815 hashers for 1,000 documents in 1 MiB, which saturates the filter once the
real count exceeds the estimate), and a saved filter is silently reused, so a rerun marks every
key it inserted the first time as a duplicate. Here:

- **Layout**: the bits form blocks of 512 bits (8 uint64 words, one cache line). A key's
  fingerprint ``h`` picks block ``h mod B``; its ``k`` bits go round-robin into the block's 8
  words, bit ``i`` at ``(fmix64(h) * SALT_ARRAY[i]) >> 58``. A lookup touches one cache line instead
  of ``k`` random ones, which is what makes a numpy filter fast: a batch of keys costs a gather
  of whole blocks and ``k`` vectorized shifts.
- **Sizing** (:func:`plan_size`): from ``n`` expected keys and target rate ``p``, the smallest
  number of blocks whose *blocked* false-positive rate (block loads are Poisson, see
  :func:`false_positive_rate`) meets ``p`` (at least 1 MiB, as upstream), with the ``k`` that
  minimises it for ``n``, but never more than the ``log2(1/p) + 1`` the target needs nor
  :data:`MAX_HASHES`. An explicit size takes the best ``k`` for ``n`` (or for ``p`` if there is no
  count, or :data:`DEFAULT_HASHES`): ``k`` never explodes when the estimate is too low.
- **Batches** (:meth:`BloomFilter.check_and_insert`): membership of a whole array of keys at once,
  with the result of inserting them one by one in order: a key equal to an earlier key of the same
  batch is a duplicate, and bits inserted by one chunk are seen by the next. (Inside one chunk of
  :data:`CHUNK` keys, bits set by a *different* earlier key are not consulted, which can only
  remove a false positive, never add a false negative.)
- **Resume**: the filter holds only bits and the number of keys inserted; which input files it
  holds is in the run's ledger (see :mod:`dolma_sql.deduper.bloom_run`).

File format (all integers little-endian), version 1::

    offset 0   8 bytes   magic  b"DSQLBLM\\x00"
    offset 8   u32       format version (1)
    offset 12  u32       header length H in bytes
    offset 16  H bytes   UTF-8 JSON header: {"layout": "blocked512", "num_bits", "num_hashes",
                         "num_words", "hash_scheme", "canary", "inserted"}
               pad       zero bytes up to a multiple of 8
               8*W bytes the bit array as W u64 words (block j is words 8j..8j+7)
               u64       xxh3_64 checksum of the word bytes

Loading verifies the magic, version, layout, sizes and checksum, so a truncated, corrupt or
foreign file (including upstream's format) is refused with a clear message instead of being misread.
"""

from __future__ import annotations

import functools
import json
import math
import struct
from dataclasses import dataclass

import numpy as np
import psutil
import xxhash

from dolma_sql import storage
from dolma_sql.errors import ConfigError, InputError
from dolma_sql.storage import urls
from dolma_sql.storage.commit import remove_temps
from dolma_sql.text import fmix64

MAGIC = b"DSQLBLM\x00"
VERSION = 1
UPSTREAM_MAGIC = struct.pack("<I", 0x81F0F117)
LAYOUT = "blocked512"
BLOCK_WORDS = 8
BLOCK_BITS = 64 * BLOCK_WORDS
MAX_HASHES = 32
DEFAULT_HASHES = 7
MIN_SIZED_BYTES = 1 << 20
"""Like upstream, a filter sized from a count is at least 1 MiB: cheap insurance when the estimate is far too low."""
CHUNK = 1 << 18
"""Keys probed per vectorized step: bounds the temporary arrays to ``CHUNK * k`` positions."""

MEMORY_HEADROOM = 0.8
"""A filter may use at most this fraction of the memory available when it is created or loaded."""


def _patterns(bits: int) -> np.ndarray:
    """65,536 words with ``bits`` distinct bits set each, drawn from splitmix64 of the index."""
    state = np.arange(1 << 16, dtype=np.uint64) * np.uint64(MAX_HASHES) + np.uint64(bits)
    table = np.zeros(1 << 16, dtype=np.uint64)
    while True:
        short = np.bitwise_count(table) < bits
        if not short.any():
            return table
        state[short] = _splitmix64_array(state[short])
        table[short] |= np.left_shift(np.uint64(1), state[short] >> np.uint64(58))


def _splitmix64_array(state: np.ndarray) -> np.ndarray:
    z = state + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@functools.cache
def pattern_table() -> np.ndarray:
    """``pattern_table()[c, v]``: the bits a key whose 16-bit hash field is ``v`` sets in a word that gets ``c`` of its
    ``k`` bits (fixed forever: part of the format). Looking patterns up costs 8 gathers per key, whatever ``k``.
    Built on first use: extraction workers import this module but never probe a filter."""
    return np.stack([np.zeros(1 << 16, dtype=np.uint64)] + [_patterns(bits) for bits in range(1, MAX_HASHES // BLOCK_WORDS + 1)])


@dataclass(frozen=True)
class Size:
    num_bits: int
    num_hashes: int

    @property
    def num_bytes(self) -> int:
        return self.num_bits // 8


def false_positive_rate(num_bits: int, num_hashes: int, count: int) -> float:
    """Expected false-positive rate of the blocked layout holding ``count`` keys.

    A block holds ``j ~ Poisson(count / blocks)`` keys; with ``j`` keys, a word that gets ``c`` of a
    key's bits has each bit set with probability ``1 - (1 - 1/64)^(j c)``.
    """
    blocks = num_bits // BLOCK_BITS
    load = count / blocks
    spread = int(max(4.0, 12 * math.sqrt(load))) + 8
    j = np.arange(max(0, int(load) - spread), int(load) + spread)
    log_poisson = j * math.log(load) - load - np.array([math.lgamma(x + 1) for x in j]) if load > 0 else np.where(j == 0, 0.0, -np.inf)
    per_word = [num_hashes // BLOCK_WORDS + (1 if w < num_hashes % BLOCK_WORDS else 0) for w in range(BLOCK_WORDS)]
    inside = np.ones(len(j))
    for bits in per_word:
        if bits:
            inside *= (1 - (1 - 1 / 64) ** (j * bits)) ** bits
    return float(np.sum(np.exp(log_poisson) * inside))


def best_hashes(num_bits: int, count: int, cap: int = MAX_HASHES) -> tuple[int, float]:
    """The ``k`` (at most ``cap``) with the lowest false-positive rate for ``count`` keys, and that rate."""
    rates = [(false_positive_rate(num_bits, k, count), k) for k in range(1, cap + 1)]
    rate, k = min(rates)
    return k, rate


def hashes_for_rate(false_positive_rate: float) -> int:
    """What an ideal filter needs for this rate (``log2(1/p)``); more hash functions only cost time."""
    return max(1, min(MAX_HASHES, math.ceil(-math.log2(false_positive_rate)) + 1))


def plan_size(*, size_in_bytes: int, estimated_count: int, false_positive_rate: float) -> Size:
    """Bits and hash functions from dolma's three knobs (see the module docstring; the config checked their ranges)."""
    rate_target = false_positive_rate
    cap = hashes_for_rate(rate_target) if rate_target > 0 else MAX_HASHES
    if size_in_bytes > 0:
        num_bits = max(BLOCK_BITS, (size_in_bytes * 8) // BLOCK_BITS * BLOCK_BITS)
        if estimated_count > 0:
            return Size(num_bits, best_hashes(num_bits, estimated_count, cap)[0])
        return Size(num_bits, cap if rate_target > 0 else DEFAULT_HASHES)
    if not (estimated_count > 0 and rate_target > 0):
        raise ConfigError(
            "either bloom_filter.size_in_bytes or both bloom_filter.estimated_doc_count and "
            "bloom_filter.desired_false_positive_rate must be set",
            path="bloom_filter",
            hint="e.g. --bloom_filter.estimated_doc_count 6_000_000 --bloom_filter.desired_false_positive_rate 0.0001",
        )
    ideal_bits = -estimated_count * math.log(rate_target) / math.log(2) ** 2
    low, high = 0, max(1, math.ceil(ideal_bits / BLOCK_BITS))
    while best_hashes(high * BLOCK_BITS, estimated_count, cap)[1] > rate_target:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if best_hashes(middle * BLOCK_BITS, estimated_count, cap)[1] > rate_target:
            low = middle
        else:
            high = middle
    num_bits = max(high * BLOCK_BITS, MIN_SIZED_BYTES * 8)
    return Size(num_bits, best_hashes(num_bits, estimated_count, cap)[0])


def check_memory(num_bytes: int, *, what: str) -> None:
    """Refuse a filter that would not fit in memory, before allocating it."""
    available = psutil.virtual_memory().available
    if num_bytes > available * MEMORY_HEADROOM:
        raise ConfigError(
            f"{what} needs {num_bytes / 2**30:.2f} GiB but only {available / 2**30:.2f} GiB of memory is available",
            path="bloom_filter",
            hint="lower estimated_doc_count or raise desired_false_positive_rate, split the run with "
            "dedupe.num_partitions, or use --exact (DuckDB spills to disk)",
        )


@dataclass
class BloomFilter:
    """``num_bits`` bits in uint64 words, probed by ``num_hashes`` double-hashing positions."""

    words: np.ndarray
    num_bits: int
    num_hashes: int
    hash_scheme: str
    canary: list[int]
    inserted: int = 0

    # ------------------------------------------------------------------ construction and files
    @classmethod
    def create(cls, size: Size, *, hash_scheme: str, canary: list[int]) -> BloomFilter:
        check_memory(size.num_bytes, what=f"a Bloom filter of {size.num_bits:,} bits")
        words = np.zeros(size.num_bits // 64, dtype=np.uint64)  # a multiple of BLOCK_WORDS
        return cls(words, size.num_bits, size.num_hashes, hash_scheme, list(canary))

    @classmethod
    def load(cls, url: str, *, read_only: bool) -> BloomFilter:
        """Read and verify a filter file; ``read_only`` maps a local file's bits instead of copying them."""
        try:
            handle = storage.open_input(url)
        except OSError as error:
            raise InputError(f"cannot open the Bloom filter: {error.strerror or error}", path=url) from None
        with handle:
            header_length, header = _read_header(handle, url)
            try:
                num_words = int(header["num_words"])
                if header.get("layout") != LAYOUT:
                    raise ValueError(f"unknown layout {header.get('layout')!r}")
                num_bits, num_hashes = int(header["num_bits"]), int(header["num_hashes"])
            except (ValueError, KeyError, TypeError) as error:
                raise InputError(f"corrupt Bloom filter header ({error})", path=url) from None
            data_offset = _data_offset(header_length)
            expected_size = data_offset + num_words * 8 + 8
            actual_size = urls.size(url)
            if actual_size != expected_size or num_bits != num_words * 64 or num_words % BLOCK_WORDS or not 1 <= num_hashes <= MAX_HASHES:
                raise InputError(
                    f"corrupt or truncated Bloom filter (file has {actual_size:,} bytes, header implies {expected_size:,})",
                    path=url,
                    hint="delete it and rerun the dedupe to rebuild it",
                )
            local = urls.local_path(url)
            if read_only and local is not None:
                words = np.memmap(local, dtype="<u8", mode="r", offset=data_offset, shape=(num_words,))
            else:
                check_memory(num_words * 8, what=f"loading {url}")
                words = np.empty(num_words, dtype="<u8")
                handle.seek(data_offset)
                handle.readinto(memoryview(words).cast("B"))
            handle.seek(data_offset + num_words * 8)
            checksum = struct.unpack("<Q", handle.read(8))[0]
        if checksum != xxhash.xxh3_64_intdigest(memoryview(words).cast("B")):
            raise InputError("Bloom filter checksum mismatch (the file is corrupt)", path=url, hint="delete it and rerun the dedupe to rebuild it")
        return cls(np.asarray(words), num_bits, num_hashes, str(header.get("hash_scheme")), list(header.get("canary", [])), int(header.get("inserted", 0)))

    def save(self, url: str, *, staging: str | None = None, rename: bool = True) -> None:
        """Write under the commit protocol, so a crash leaves the previous checkpoint intact."""
        header = json.dumps(
            {
                "layout": LAYOUT,
                "num_bits": self.num_bits,
                "num_hashes": self.num_hashes,
                "num_words": len(self.words),
                "hash_scheme": self.hash_scheme,
                "canary": self.canary,
                "inserted": self.inserted,
            },
            sort_keys=True,
        ).encode()
        words = np.ascontiguousarray(self.words, dtype="<u8")
        remove_temps(url)  # of a writer killed before it committed
        with storage.staged(url, staging=staging, rename=rename) as temp, open(temp, "wb") as handle:
            handle.write(MAGIC + struct.pack("<II", VERSION, len(header)) + header)
            handle.write(b"\x00" * (_data_offset(len(header)) - 16 - len(header)))
            words.tofile(handle)
            handle.write(struct.pack("<Q", xxhash.xxh3_64_intdigest(memoryview(words).cast("B"))))

    # ------------------------------------------------------------------ membership
    def _blocks_and_masks(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each key's block (row of :data:`BLOCK_WORDS` words) and its ``(n, 8)`` bit pattern in that block.

        Word ``w`` of the pattern is ``pattern_table()[c_w, f_w]``: ``c_w`` of the key's ``k`` bits go to word ``w``
        (round-robin), and ``f_w`` is the ``w``-th 16-bit field of ``fmix64(h)`` then ``fmix64(fmix64(h) ^ φ)``.
        """
        block = (keys % np.uint64(len(self.words) // BLOCK_WORDS)).astype(np.intp)
        mixed = np.empty((len(keys), 2), dtype="<u8")
        mixed[:, 0] = fmix64(keys)
        mixed[:, 1] = fmix64(mixed[:, 0] ^ np.uint64(0x9E3779B97F4A7C15))
        fields = mixed.view("<u2")  # (n, 8): the 16-bit fields, low first
        bits = np.array([self.num_hashes // BLOCK_WORDS + (lane < self.num_hashes % BLOCK_WORDS) for lane in range(BLOCK_WORDS)])
        table = pattern_table()
        if np.all(bits == bits[0]):  # every word gets as many bits (k a multiple of 8): one row of the table
            return block, table[bits[0]].take(fields)
        return block, table.ravel().take(fields + (bits * table.shape[1])[None, :])

    def check_and_insert(self, keys: np.ndarray, *, insert: bool, distinct: bool = False) -> np.ndarray:
        """Duplicate flags for ``keys`` (uint64 fingerprints) as if checked and inserted one by one.

        A key is a duplicate when all its bits were already set or, with ``insert``, when an
        equal key came earlier in ``keys`` (``distinct=True`` promises there is none and skips
        that check). With ``insert`` the other keys are added; without, nothing changes.
        """
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        rows = self.words.reshape(-1, BLOCK_WORDS)
        duplicate = np.empty(len(keys), dtype=bool)
        for begin in range(0, len(keys), CHUNK):
            chunk = keys[begin : begin + CHUNK]
            block, masks = self._blocks_and_masks(chunk)
            found = rows.take(block, axis=0)
            np.bitwise_and(found, masks, out=found)
            flags = (found == masks).all(axis=1)
            if insert and not distinct:
                flags |= ~first_occurrences(chunk)
            duplicate[begin : begin + len(chunk)] = flags
            if insert and not flags.all():
                new = np.flatnonzero(~flags)
                np.bitwise_or.at(rows, block[new], masks[new])  # a block may take several keys of the chunk
                self.inserted += len(new)
        return duplicate

    # ------------------------------------------------------------------ statistics
    def fill_ratio(self) -> float:
        return float(np.bitwise_count(self.words).sum(dtype=np.int64)) / self.num_bits

    def estimated_false_positive_rate(self) -> float:
        return self.fill_ratio() ** self.num_hashes


def first_occurrences(keys: np.ndarray) -> np.ndarray:
    """``True`` where a key appears for the first time in ``keys`` (vectorized): a run of equal keys in sorted
    order, whatever order the sort left them in, has its first occurrence at its smallest position."""
    first = np.zeros(len(keys), dtype=bool)
    if not len(keys):
        return first
    order = np.argsort(keys)
    ordered = keys[order]
    runs = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    first[np.minimum.reduceat(order, runs)] = True
    return first


def _read_header(handle, url: str) -> tuple[int, dict]:
    """The header's length and content, after the magic number and version are checked."""
    prefix = handle.read(16)
    if prefix[:4] == UPSTREAM_MAGIC:
        raise InputError(
            "this is a Bloom filter written by upstream dolma; its bits depend on randomly seeded "
            "ahash hashers and cannot be read by dolma-sql",
            path=url,
            hint="rebuild the filter with dolma-sql (run the dedupe again with a new bloom_filter.file)",
        )
    if len(prefix) < 16 or prefix[:8] != MAGIC:
        raise InputError(
            "not a dolma-sql Bloom filter (bad magic number)",
            path=url,
            hint="point bloom_filter.file at a filter written by dolma-sql, or at a path that does not exist yet",
        )
    version, header_length = struct.unpack("<II", prefix[8:16])
    if version != VERSION:
        raise InputError(f"Bloom filter format version {version} is not supported (this dolma-sql reads {VERSION})", path=url)
    try:
        return header_length, json.loads(handle.read(header_length))
    except ValueError as error:
        raise InputError(f"corrupt Bloom filter header ({error})", path=url) from None


def _data_offset(header_length: int) -> int:
    return -(-(16 + header_length) // 8) * 8
