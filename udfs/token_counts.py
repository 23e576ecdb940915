"""Token counts (dolma ``taggers/length.py``, ``taggers/tokenizers.py``): OLMo's pre-tokenizer and tokenizer files.

``olmo_pretokenizer_*`` build OLMo v1's pre-tokenizer in code (punctuation and digits split off,
then GPT-2's byte-level split) and count its pieces: the pre-tokenizer has no batch call, so they
are per-document. ``dolma_v1_tokenizer``, ``dolma_v2_tokenizer`` and ``tokenizers_*`` count tokens
with a local ``tokenizer.json`` (``--models.tokenizer PATH``; upstream downloads
``allenai/gpt-neox-olmo-dolma-v1_5``, ``allenai/dolma2-tokenizer``, ``EleutherAI/gpt-neox-20B`` or
``allenai/eleuther-ai-gpt-neox-20b-pii-special`` from the Hugging Face hub), encoding a batch at once.
"""

from __future__ import annotations

import os
from functools import cache

import numpy as np

from dolma_sql.errors import ConfigError
from dolma_sql.tagging import Spans, TagBatch, tagger
from dolma_sql.udfs.language import paragraph_texts
from dolma_sql.udfs.text import PY_WHITESPACE


@cache
def olmo_pretokenizer():
    from tokenizers import Regex, pre_tokenizers

    return pre_tokenizers.Sequence([
        pre_tokenizers.Split(pattern=Regex(" ?[[:punct:]]"), behavior="isolated", invert=False),
        pre_tokenizers.Split(pattern=Regex(" ?\\d"), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])


def _pieces(texts: list[str]) -> np.ndarray:
    split = olmo_pretokenizer().pre_tokenize_str
    return np.fromiter((len(split(text)) for text in texts), dtype=np.int64, count=len(texts))


@tagger("olmo_pretokenizer_v1", types=["length"], vectorized=False)
def olmo_pretokenizer_v1(batch: TagBatch):
    return {"length": Spans.document(batch.lengths, _pieces(batch.column("text").to_pylist()))}


@tagger("olmo_pretokenizer_with_paragraphs_v1", types=["paragraph", "document"], vectorized=False)
def olmo_pretokenizer_with_paragraphs_v1(batch: TagBatch):
    paras = paragraph_texts(batch)  # with their newline, as upstream pre-tokenizes them
    counts = _pieces(paras.text.to_pylist())
    total = np.bincount(paras.rows, weights=counts, minlength=len(batch)).astype(np.int64)
    return {"paragraph": Spans(paras.rows, paras.starts, paras.ends, counts), "document": Spans.document(batch.lengths, total)}


# ------------------------------------------------------------------ a tokenizer file
def require_tokenizer(options: dict) -> None:
    path = options.get("tokenizer")
    if not path:
        raise ConfigError("the tokenizer taggers need a tokenizer file", path="models.tokenizer",
                          hint="pass --models.tokenizer PATH/TO/tokenizer.json (upstream downloads it from the Hugging Face hub)")
    if not os.path.isfile(path):
        raise ConfigError(f"tokenizer file not found: {path}", path="models.tokenizer")
    try:
        load_tokenizer(path)
    except Exception as error:  # noqa: BLE001 - the tokenizers library raises a bare Exception
        raise ConfigError(f"cannot load tokenizer {path}: {error}", path="models.tokenizer") from None


@cache
def load_tokenizer(path: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(path)


def token_counts(batch: TagBatch, texts: list[str], *, special_tokens: bool) -> np.ndarray:
    encodings = load_tokenizer(batch.options["tokenizer"]).encode_batch(texts, add_special_tokens=special_tokens)
    return np.fromiter((len(encoding.ids) for encoding in encodings), dtype=np.int64, count=len(texts))


TOKENIZER = {"requires": "tokenizers", "check": require_tokenizer}


def _dolma_length(batch: TagBatch):
    """Tokens of the stripped text, special tokens included (0 for a blank text)."""
    stripped = batch.series.str.strip_chars(PY_WHITESPACE)
    blank = (stripped.str.len_chars() == 0).to_numpy()
    counts = token_counts(batch, stripped.to_list(), special_tokens=True)
    return {"length": Spans.document(batch.lengths, np.where(blank, 0, counts))}


def _tokens(batch: TagBatch):
    """Tokens of the text, without special tokens."""
    return {"tokens": Spans.document(batch.lengths, token_counts(batch, batch.column("text").to_pylist(), special_tokens=False))}


for _name in ("dolma_v1_tokenizer", "dolma_v2_tokenizer"):  # upstream's two differ only in the tokenizer they download
    tagger(_name, types=["length"], **TOKENIZER)(_dolma_length)
for _name in ("tokenizers_EleutherAI_GPT_NeoX_20B", "tokenizers_AI2_OLMo_v1"):
    tagger(_name, types=["tokens"], **TOKENIZER)(_tokens)
