"""Text building blocks shared by commands: Unicode word segments, Unicode whitespace, a 64-bit hash mix."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

UNICODE_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

"""Unicode White_Space, what Rust's ``str::trim()`` strips (Python's ``str.strip()`` also strips ``\\x1c``-``\\x1f``)."""


_EXTEND = r"[\p{M}\p{Cf}\p{Emoji_Modifier}]"
_NOT_ALETTER = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Myanmar}\p{Khmer}\p{Tai_Tham}\p{Tai_Viet}\p{New_Tai_Lue}\p{Tai_Le}\p{Ideographic}\p{M}"
_LETTER = rf"[\p{{Alphabetic}}--[{_NOT_ALETTER}]]{_EXTEND}*"
_DIGIT = rf"\p{{Nd}}{_EXTEND}*"
_KATAKANA = rf"\p{{Katakana}}{_EXTEND}*"
_CONNECTOR = rf"\p{{Pc}}{_EXTEND}*"
_MID_LETTER = r":\x{B7}\x{387}\x{55F}\x{5F4}\x{2027}\x{FE13}\x{FE55}\x{FF1A}"
_MID_NUM_LETTER = r"\.'\x{2018}\x{2019}\x{2024}\x{FE52}\x{FF07}\x{FF0E}"
_MID_NUM = r",;\x{37E}\x{589}\x{60C}\x{60D}\x{66C}\x{7F8}\x{2044}\x{FE10}\x{FE14}\x{FE50}\x{FE54}\x{FF0C}\x{FF1B}"
WORD_PATTERN = (
    rf"(?:{_LETTER}(?:[{_MID_LETTER}{_MID_NUM_LETTER}]{_LETTER})*|{_DIGIT}(?:[{_MID_NUM}{_MID_NUM_LETTER}]{_DIGIT})*|{_CONNECTOR})+"
    rf"|(?:{_KATAKANA}|{_CONNECTOR})+"
    rf"|\S(?:\x{{200D}}\p{{Extended_Pictographic}}|{_EXTEND})*"
)
"""Non-whitespace Unicode word segments (UAX #29, as Rust's ``split_word_bounds`` minus whitespace tokens),
as one Rust-regex pattern so polars tokenizes a whole column at once. Letters and digits join across
mid-letter / mid-number punctuation (``It's``, ``3.14``, ``1,000``, ``a.b``); ideographs, kana and
Thai-like scripts are one token per character; combining marks stay with their base."""


def count_words(strings: pa.Array) -> np.ndarray:
    import polars as pl

    return pl.from_arrow(strings).str.count_matches(WORD_PATTERN).to_numpy().astype(np.int64)


def fmix64(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finalizer: a bijective mix so every output bit depends on every input bit."""
    x = values.astype(np.uint64, copy=True)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(33)
    return x
