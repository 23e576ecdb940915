"""The numpy Bloom filter: sizing, sequential batch semantics, no false negatives, measured false-positive
rate, the versioned file format and its refusals."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dolma_sql.deduper import bloom
from dolma_sql.deduper.bloom import BloomFilter, plan_size
from dolma_sql.errors import ConfigError, InputError


def new_filter(count: int = 10_000, rate: float = 1e-4) -> BloomFilter:
    return BloomFilter.create(plan_size(size_in_bytes=0, estimated_count=count, false_positive_rate=rate), hash_scheme="test", canary=[1, 2])


def test_hash_count_stays_sane_when_the_estimate_is_tiny() -> None:
    # upstream: 1 MiB for 1,000 documents at 1e-3 gives 5,815 hash functions and saturates
    size = plan_size(size_in_bytes=0, estimated_count=1000, false_positive_rate=1e-3)
    assert size.num_bytes == 1 << 20
    assert size.num_hashes <= 11


def test_sizing_from_count_and_rate_is_close_to_optimal() -> None:
    size = plan_size(size_in_bytes=0, estimated_count=10_000_000, false_positive_rate=1e-4)
    optimal_bits = -10_000_000 * np.log(1e-4) / np.log(2) ** 2
    assert optimal_bits <= size.num_bits <= 1.5 * optimal_bits
    assert 8 <= size.num_hashes <= 15


def test_size_without_count_does_not_crash() -> None:
    size = plan_size(size_in_bytes=1000, estimated_count=0, false_positive_rate=0)
    assert size.num_bits == 8000 // 512 * 512 and size.num_hashes == bloom.DEFAULT_HASHES
    assert plan_size(size_in_bytes=1 << 20, estimated_count=0, false_positive_rate=1e-3).num_hashes == 11


def test_no_size_information_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="size_in_bytes or both"):
        plan_size(size_in_bytes=0, estimated_count=100, false_positive_rate=0)


def test_refuses_a_filter_that_does_not_fit_in_memory(monkeypatch) -> None:
    class Memory:
        available = 1 << 20

    monkeypatch.setattr(bloom.psutil, "virtual_memory", lambda: Memory)
    with pytest.raises(ConfigError, match="GiB of memory is available"):
        new_filter(count=10_000_000)


def test_duplicates_inside_one_batch_follow_sequential_order() -> None:
    keys = np.array([5, 7, 5, 9, 7, 7, 11], dtype=np.uint64)
    assert new_filter().check_and_insert(keys, insert=True).tolist() == [False, False, True, False, True, True, False]


def test_read_only_checks_never_insert() -> None:
    bloom_filter = new_filter()
    bloom_filter.check_and_insert(np.array([1, 2], dtype=np.uint64), insert=True)
    words = bloom_filter.words.copy()
    flags = bloom_filter.check_and_insert(np.array([1, 3, 3], dtype=np.uint64), insert=False)
    assert flags.tolist() == [True, False, False]  # 3 was never inserted
    assert np.array_equal(words, bloom_filter.words)


@pytest.mark.parametrize(
    ("num_hashes", "num_bits", "expected"),
    [
        (16, 1 << 22, "46071adf616bb2162f50388e1a8d81b68cc4b4aaf869a760fd8ba000a7c3adfa"),
        (7, 1 << 20, "bcd8af4db08a8116567f761d64a30920124f017970fc953413e458d06de2a9ec"),
        (21, 1 << 21, "c0419c88227e12f408d60a22b5061c69c9a9a53a77a6559c3462066e11b4fd65"),
    ],
)
def test_bits_and_flags_are_those_of_the_format(num_hashes: int, num_bits: int, expected: str) -> None:
    """The bits a batch sets and the flags it gets are part of the file format: these digests were taken from
    the first implementation (several chunks, keys repeated inside and across chunks, every way the ``k`` bits
    spread over a block's words), so a faster probe or insertion cannot change a saved filter or a verdict."""
    import hashlib

    keys = np.random.default_rng(7).integers(0, 2**64 - 1, 300_000, dtype=np.uint64, endpoint=True)
    keys = np.concatenate([keys, keys[::3], keys[:5]])
    bloom_filter = BloomFilter.create(bloom.Size(num_bits, num_hashes), hash_scheme="t", canary=[])
    flags = bloom_filter.check_and_insert(keys, insert=True)
    probed = bloom_filter.check_and_insert(keys[:1000] + np.uint64(1), insert=False)
    digest = hashlib.sha256(bloom_filter.words.tobytes() + np.packbits(flags).tobytes() + np.packbits(probed).tobytes()).hexdigest()
    assert digest == expected
    assert bloom_filter.inserted == len(keys) - int(flags.sum())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=40), max_size=400))
def test_first_occurrences_marks_each_key_once_at_its_first_position(values: list[int]) -> None:
    seen: set[int] = set()
    expected = [value not in seen and not seen.add(value) for value in values]
    assert bloom.first_occurrences(np.array(values, dtype=np.uint64)).tolist() == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2**64 - 1), min_size=1, max_size=3000), st.integers(1, 5))
def test_no_false_negatives_ever(values: list[int], batches: int) -> None:
    """Every key inserted earlier is reported a duplicate, however the keys are split into batches."""
    keys = np.array(values, dtype=np.uint64)
    bloom_filter = BloomFilter.create(plan_size(size_in_bytes=4096, estimated_count=500, false_positive_rate=0.01), hash_scheme="t", canary=[])
    seen: set[int] = set()
    for part in np.array_split(keys, batches):
        flags = bloom_filter.check_and_insert(part, insert=True)
        for key, flag in zip(part.tolist(), flags.tolist()):
            if key in seen:
                assert flag, "false negative"
            seen.add(key)


@pytest.mark.parametrize("rate", [1e-2, 1e-3])
def test_measured_false_positive_rate_is_within_twice_the_target(rate: float) -> None:
    rng = np.random.default_rng(7)
    bloom_filter = new_filter(count=1_000_000, rate=rate)
    inserted = rng.integers(0, 2**64 - 1, 1_000_000, dtype=np.uint64, endpoint=True)
    bloom_filter.check_and_insert(inserted, insert=True)
    probes = rng.integers(0, 2**64 - 1, 1_000_000, dtype=np.uint64, endpoint=True)
    probes = probes[~np.isin(probes, inserted)]
    measured = bloom_filter.check_and_insert(probes, insert=False).mean()
    assert rate / 2 <= measured <= 2 * rate
    assert rate / 2 <= bloom_filter.estimated_false_positive_rate() <= 2 * rate


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    bloom_filter = new_filter()
    keys = np.arange(1000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    bloom_filter.check_and_insert(keys, insert=True)
    path = tmp_path / "f.bin"
    bloom_filter.save(str(path))
    assert path.read_bytes()[:8] == bloom.MAGIC
    for read_only in (True, False):
        loaded = BloomFilter.load(str(path), read_only=read_only)
        assert (loaded.num_bits, loaded.num_hashes, loaded.inserted, loaded.canary) == (bloom_filter.num_bits, bloom_filter.num_hashes, 1000, [1, 2])
        assert loaded.check_and_insert(keys, insert=False).all()


def saved(tmp_path: Path) -> Path:
    path = tmp_path / "f.bin"
    bloom_filter = new_filter()
    bloom_filter.check_and_insert(np.arange(10, dtype=np.uint64), insert=True)
    bloom_filter.save(str(path))
    return path


def test_truncated_file_is_refused(tmp_path: Path) -> None:
    path = saved(tmp_path)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(InputError, match="corrupt or truncated"):
        BloomFilter.load(str(path), read_only=True)


def test_flipped_bit_is_refused(tmp_path: Path) -> None:
    path = saved(tmp_path)
    data = bytearray(path.read_bytes())
    data[-20] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="checksum mismatch"):
        BloomFilter.load(str(path), read_only=False)


def test_foreign_and_upstream_files_are_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.bin"
    foreign.write_bytes(b"PK\x03\x04 definitely a zip file")
    with pytest.raises(InputError, match="bad magic"):
        BloomFilter.load(str(foreign), read_only=True)
    upstream = tmp_path / "upstream.bin"
    upstream.write_bytes(struct.pack("<III", 0x81F0F117, 1, 1) + b"\x00" * 48)
    with pytest.raises(InputError, match="written by upstream dolma"):
        BloomFilter.load(str(upstream), read_only=True)


def test_newer_format_version_is_refused(tmp_path: Path) -> None:
    path = saved(tmp_path)
    data = bytearray(path.read_bytes())
    data[8:12] = struct.pack("<I", 99)
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="version 99"):
        BloomFilter.load(str(path), read_only=True)
