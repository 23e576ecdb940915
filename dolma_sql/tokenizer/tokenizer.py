"""dolma's document encoding over the Hugging Face ``tokenizers`` Rust library, batch by batch."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from itertools import chain

import numpy as np

from dolma_sql.config.tokens import TokenizerConfig
from dolma_sql.errors import ConfigError
from dolma_sql.storage import urls

UNICODE_FORMS = {"NFC", "NFD", "NFKC", "NFKD"}


class DocumentTokenizer:
    """dolma's document encoding over the HF ``tokenizers`` Rust library, batch by batch.

    A document becomes ``[bos]? + ids + [eos]?`` where bos (eos) is added unless ``ids`` already
    starts (ends) with it, and nothing is added to a document without tokens, as dolma does.
    When the tokenizer's normalizer is one Unicode normal form, texts already in that form skip
    it (the result is the same, and normalizing is a third of the work).
    """

    def __init__(self, options: TokenizerConfig, dtype: str | None = None) -> None:
        from tokenizers import Tokenizer

        path = options.name_or_path
        if path is None or not urls.isfile(path):
            raise _missing_tokenizer(path)
        content = urls.read_bytes(path)
        try:
            self.tokenizer = Tokenizer.from_str(content.decode("utf-8"))
            spec = json.loads(content)
        except Exception as error:  # tokenizers raises plain Exceptions for malformed files
            raise ConfigError(f"cannot load tokenizer: {error}", path=path, hint="pass a Hugging Face tokenizer.json file") from None
        self.sha256 = hashlib.sha256(content).hexdigest()
        self.options = options
        self.vocab_size = self.tokenizer.get_vocab_size()
        self.needed_dtype = np.dtype(np.min_scalar_type(self.vocab_size - 1)).newbyteorder("<")
        self.dtype = self.needed_dtype if dtype is None else _memmap_dtype(dtype, self.needed_dtype, self.vocab_size)
        for name in ("bos_token_id", "eos_token_id"):
            value = getattr(options, name)
            if value is not None and not 0 <= value <= np.iinfo(self.dtype).max:
                raise ConfigError(f"{value} does not fit in {self.dtype.name}", path=f"tokenizer.{name}", hint="check the id against the tokenizer's vocabulary")
        self.has_prefix = _adds_prefix(spec)
        normalizer = spec.get("normalizer") or {}
        self.normal_form = normalizer.get("type") if normalizer.get("type") in UNICODE_FORMS else None
        self._spec = self.tokenizer.to_str()
        self.tokenizer.encode_special_tokens = options.encode_special_tokens
        self.plain = None
        self._since_refresh = 0

    def _load(self, *, fresh: bool) -> None:
        """Build the normalizer-free twin, and with ``fresh`` re-create the main tokenizer too
        (``refresh`` every N documents: dolma's workaround for the tokenizers' memory growth)."""
        from tokenizers import Tokenizer

        if fresh:
            self.tokenizer = Tokenizer.from_str(self._spec)
            self.tokenizer.encode_special_tokens = self.options.encode_special_tokens
        if self.normal_form:
            self.plain = Tokenizer.from_str(self._spec)
            self.plain.normalizer = None
            self.plain.encode_special_tokens = self.options.encode_special_tokens
        self._since_refresh = 0

    def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids of ``texts`` (stripped, non-empty) with bos/eos: ``(flat ids, per-document lengths)``."""
        if self.options.refresh and self._since_refresh >= self.options.refresh:
            self._load(fresh=True)
        elif self.normal_form and self.plain is None:
            self._load(fresh=False)
        self._since_refresh += len(texts)
        if self.options.segment_before_tokenization:
            ids = self._encode_paragraphs(texts)
        else:
            ids = self._encode_all(texts)
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(lengths.sum()))
        return self._add_special_tokens(flat, lengths)

    def _encode_all(self, texts: list[str]) -> list[list[int]]:
        if not self.normal_form:
            return _ids(self.tokenizer, texts)
        normal = [unicodedata.is_normalized(self.normal_form, text) for text in texts]
        if all(normal):
            return _ids(self.plain, texts)
        ids: list = [None] * len(texts)
        for tokenizer, wanted in ((self.plain, True), (self.tokenizer, False)):
            rows = [row for row, flag in enumerate(normal) if flag is wanted]
            for row, row_ids in zip(rows, _ids(tokenizer, [texts[row] for row in rows])):
                ids[row] = row_ids
        return ids

    def _encode_paragraphs(self, texts: list[str]) -> list[list[int]]:
        """dolma's experimental ``segment_before_tokenization``: encode paragraphs, then join their ids.

        Paragraphs keep their leading newlines; with a prefix-adding tokenizer every paragraph but
        the first gets a space that is dropped again as its first token.
        """
        pieces: list[str] = []
        bounds: list[int] = [0]
        for text in texts:
            for index, match in enumerate(PARAGRAPH.finditer(text)):
                pieces.append((" " if self.has_prefix and index else "") + match.group())
            bounds.append(len(pieces))
        encoded = self._encode_all(pieces)
        trim = 1 if self.has_prefix else 0
        return [
            list(chain.from_iterable(encoded[k][trim if k > start else 0 :] for k in range(start, end)))
            for start, end in zip(bounds, bounds[1:])
        ]

    def _add_special_tokens(self, flat: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        nonempty = lengths > 0
        bos, eos = self.options.bos_token_id, self.options.eos_token_id
        no = np.zeros(len(lengths), dtype=bool)
        add_bos = nonempty & (flat[np.where(nonempty, starts, 0)] != bos) if bos is not None and len(flat) else no
        add_eos = nonempty & (flat[np.where(nonempty, starts + lengths - 1, 0)] != eos) if eos is not None and len(flat) else no
        new_lengths = lengths + add_bos + add_eos
        new_starts = np.concatenate([[0], np.cumsum(new_lengths)]).astype(np.int64)
        out = np.empty(int(new_starts[-1]), dtype=self.dtype)
        shift = np.repeat(new_starts[:-1] + add_bos - starts, lengths)
        out[np.arange(len(flat)) + shift] = flat
        if add_bos.any():
            out[new_starts[:-1][add_bos]] = bos
        if add_eos.any():
            out[new_starts[1:][add_eos] - 1] = eos
        return out, new_lengths


PARAGRAPH = re.compile(r"(^\n*|\n+)[^\n]*")


ENCODE_CHARS = 1 << 19
"""Characters per ``encode_batch`` call: the Rust encodings cost ~100 bytes per token until converted to ids."""


def _memmap_dtype(name: str, needed: np.dtype, vocab_size: int) -> np.dtype:
    """The memmaps' dtype: any unsigned integer type the vocabulary's ids fit in (dolma 1.2.1 takes
    only the smallest, ``needed``; one dtype for several tokenizers is a common choice)."""
    try:
        wanted = np.dtype(name)
    except TypeError:
        raise ConfigError(f"{name!r} is not a numpy dtype", path="dtype", hint=f"pass --dtype {needed.name}") from None
    if wanted.kind != "u":
        raise ConfigError(f"{name!r} is not an unsigned integer dtype", path="dtype", hint=f"pass --dtype {needed.name} (or a wider uint)")
    if wanted.itemsize < needed.itemsize:
        raise ConfigError(
            f"dtype {name!r} is too small for the tokenizer: its vocabulary of {vocab_size:,} ids needs {needed.name}",
            path="dtype",
            hint=f"pass --dtype {needed.name} (or a wider uint)",
        )
    return wanted.newbyteorder("<")


def _ids(tokenizer, texts: list[str]) -> list[list[int]]:
    """Token ids of each text, encoded in slices of about ``ENCODE_CHARS`` characters (multi-threaded within a slice)."""
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    ids: list[list[int]] = []
    first = chars = 0
    for index, text in enumerate(texts):
        chars += len(text)
        if chars >= ENCODE_CHARS or index == len(texts) - 1:
            ids.extend(encoding.ids for encoding in encode(texts[first : index + 1], add_special_tokens=False))
            first, chars = index + 1, 0
    return ids


def _adds_prefix(spec: dict) -> bool:
    """Whether the tokenizer puts a prefix before a text (a pre-tokenizer's ``add_prefix_space`` or a ``Prepend`` normalizer)."""
    pre = spec.get("pre_tokenizer") or {}
    pres = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    norm = spec.get("normalizer") or {}
    norms = norm.get("normalizers", []) if norm.get("type") == "Sequence" else [norm]
    return any(p.get("add_prefix_space", False) for p in pres) or any(n.get("type") == "Prepend" for n in norms)


def _missing_tokenizer(name: str | None) -> ConfigError:
    looks_like_hub_name = name is not None and not name.endswith(".json") and name.count("/") <= 1 and not name.startswith((".", "/", "~"))
    if looks_like_hub_name:
        return ConfigError(
            f"{name!r} is not a local file; dolma-sql does not download tokenizers from the Hugging Face Hub",
            path="tokenizer.name_or_path",
            hint=f"download it first (e.g. `huggingface-cli download {name} tokenizer.json --local-dir tok`) and pass the tokenizer.json path",
        )
    return ConfigError(f"tokenizer file not found: {name}", path="tokenizer.name_or_path", hint="pass the path of an existing tokenizer.json")


