"""Key fingerprints: 64-bit for the Bloom filter, 128-bit (two 64-bit lanes) for exact mode."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from dolma_sql.text import fmix64

HASH_SCHEME = "duckdb-hash+fmix64/v1"
"""Stored in a Bloom filter with a canary, so a filter made by an incompatible hash is refused."""

EXACT_SEEDS = (0x64_6F_6C_6D_61, 0x73_71_6C)
"""Exact mode's two lanes: Polars' string hash (XXH3 seeded from these) once per seed."""

CANARY_STRINGS = ["dolma-sql", "", "é", "a much longer string than a DuckDB inline string"]
POLY = np.uint64(0x100000001B3)
POLY2 = np.uint64(0x9E3779B97F4A7C15)


class Fingerprinter:
    """64-bit (Bloom) or 2x64-bit (exact) fingerprints of strings and of token sequences.

    A string's fingerprint is ``fmix64(hash(s))``; a sequence's is ``fmix64(sum hash(t_j) * P^(n-1-j))``
    per lane, so a one-token sequence and the same string agree, as dolma's ``[p]`` and ``[t]`` keys do.
    Bloom mode hashes with DuckDB's vectorized ``hash``. Exact mode hashes each string with XXH3 under
    two seeds (Polars' ``hash``): a 128-bit fingerprint, whose collisions are negligible at any corpus
    size, at a fraction of MD5's cost. Polars does not promise the same values across its versions, so
    :func:`exact_scheme` names the version, and intermediate tables of another one are not reused.
    """

    def __init__(self, *, exact: bool, threads: int = 1) -> None:
        from dolma_sql.engine import sealed_connection

        self.exact = exact
        self.lanes = 2 if exact else 1
        self.connection = sealed_connection(threads=max(1, threads))

    def raw(self, strings: pa.Array) -> np.ndarray:
        """``(n, lanes)`` uint64 hashes of the strings (before mixing)."""
        return self._hashed(strings, lengths=False)[0]

    def strings(self, strings: pa.Array) -> np.ndarray:
        return fmix64(self.raw(strings))

    def strings_and_lengths(self, strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        """The strings' fingerprints and their lengths in code points (int64), counted in the same pass over
        the strings as the hash, which costs less than a pass of its own."""
        hashes, lengths = self._hashed(strings, lengths=True)
        return fmix64(hashes), lengths

    def _hashed(self, strings: pa.Array, *, lengths: bool) -> tuple[np.ndarray, np.ndarray | None]:
        if len(strings) == 0:
            return np.zeros((0, self.lanes), dtype=np.uint64), np.zeros(0, dtype=np.int64) if lengths else None
        if self.exact:
            import polars as pl

            series = pl.Series(strings)
            hashes = np.stack([series.hash(seed).to_numpy() for seed in EXACT_SEEDS], axis=1).astype(np.uint64, copy=False)
            return hashes, series.str.len_chars().to_numpy().astype(np.int64) if lengths else None
        self.connection.register("strings", pa.table({"s": strings}))
        try:
            table = self.connection.sql(f"SELECT hash(s) AS a{', length(s) AS n' if lengths else ''} FROM strings").to_arrow_table()
        finally:
            self.connection.unregister("strings")
        hashes = table.column("a").to_numpy().astype(np.uint64).reshape(-1, 1)
        return hashes, table.column("n").to_numpy().astype(np.int64) if lengths else None

    def windows(self, token_hashes: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
        """Fingerprints of the ``length``-token windows starting at ``starts`` (indexes into ``token_hashes``)."""
        combined = np.zeros((len(starts), self.lanes), dtype=np.uint64)
        for offset in range(length):
            combined *= np.array([POLY, POLY2][: self.lanes], dtype=np.uint64)
            combined += token_hashes[starts + offset]
        return fmix64(combined)

    def canary(self) -> list[int]:
        return [int(x) for x in self.strings(pa.array(CANARY_STRINGS, pa.large_string()))[:, 0]]


def exact_scheme() -> str:
    """What exact mode's fingerprints depend on: the work folder is named by it."""
    import polars as pl

    return f"polars-hash-xxh3/{pl.__version__}"


_FINGERPRINTERS: dict[tuple[bool, int], Fingerprinter] = {}


def fingerprinter(*, exact: bool, threads: int = 1) -> Fingerprinter:
    """One per process and kind: connecting DuckDB costs more than hashing a small file."""
    if (exact, threads) not in _FINGERPRINTERS:
        _FINGERPRINTERS[exact, threads] = Fingerprinter(exact=exact, threads=threads)
    return _FINGERPRINTERS[exact, threads]
