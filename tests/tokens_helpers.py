"""Shared pieces of the tokens tests: tokenizer flags, a small corpus with edge cases, running a config."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from conftest import CONFORMANCE, SHARED
from dolma_sql.runtime.executors import executor_of
from dolma_sql.config import load_config
from dolma_sql.config.tokens import TokensConfig
from dolma_sql.tokenizer import TokensResult, run

TOKENIZERS = CONFORMANCE / "tests" / "data" / "tokenizer"
GPT_NEO = ["--tokenizer.name_or_path", str(TOKENIZERS / "gpt-neo-test-tokenizer.json"), "--tokenizer.eos_token_id", "50279", "--tokenizer.pad_token_id", "1"]
LLAMA = ["--tokenizer.name_or_path", str(TOKENIZERS / "llama-test-tokenizer.json"), "--tokenizer.bos_token_id", "1", "--tokenizer.eos_token_id", "2"]

EDGE_DOCS = [
    {"id": "plain", "text": "Hello world.\n\nA second paragraph."},
    {"id": "empty", "text": ""},
    {"id": "blank", "text": "  \n\t \n"},
    {"id": "padded", "text": "\n\n  indented start and trailing space   \n"},
    {"id": "special", "text": "literal <|endoftext|> and <s> tokens </s> inside"},
    {"id": "decomposed", "text": "Cafe\u0301 na\u0308ive \u212b"},  # not NFC: the normalizer must run
    {"id": "unicode", "text": "emoji 🎉 CJK 漢字 RTL שלום \u00a0nbsp\u2028sep"},
    {"id": "comma,quote\"id", "text": "an id that needs csv quoting"},
    {"id": "ws-only-unicode", "text": "\u3000\u2003"},
]


def write_corpus(root: Path) -> Path:
    """A small gencorpus corpus (4 files) plus a file of edge cases, in ``root/documents``."""
    subprocess.run(
        [sys.executable, str(SHARED / "bench" / "gencorpus.py"), str(root), "--docs", "300", "--files", "4", "--seed", "7"],
        check=True,
        capture_output=True,
    )
    with gzip.open(root / "documents" / "edge.jsonl.gz", "wt", encoding="utf-8") as handle:
        for doc in EDGE_DOCS:
            handle.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return root


def tokens(args: list[str], config_file: str | None = None) -> TokensResult:
    """Run ``dolma-sql tokens`` in-process with dolma's flags, on the executor the config asks for."""
    config = load_config(TokensConfig, config_file=config_file, flags=args)
    with executor_of(config) as executor:
        return run(config, executor=executor)
