"""datatrove 0.10.1's MinHash deduplication, one stage per call, run by the interpreter of its own venv.

    .datatrove/bin/python bench/datatrove_minhash.py STAGE DOCUMENTS_FOLDER WORK_FOLDER [--workers 2] ...

STAGE is ``signatures``, ``buckets``, ``cluster``, ``filter`` (datatrove's four steps, each on its
``LocalPipelineExecutor``), ``all`` (the four in turn) or ``clusters`` (no datatrove step: prints the
clusters stage 3 found as JSON, ``[[[file, line], ...], ...]`` with ``file`` the sorted index of the
input file, for the agreement test). Stage 1 and 4 run one task per input file (datatrove numbers
documents by task and position, so a task is a file); stage 2 one task per bucket; stage 3 one task.

The settings are dolma-sql's defaults as far as datatrove's options reach: 5-word shingles, 14
buckets of 8 hashes, 64-bit hashes, seed 1; lower-casing, punctuation to spaces and whitespace
folding, but no number or diacritics folding (dolma-sql's defaults fold neither); words are split on
whitespace (datatrove's English tokenizer is NLTK's, whose model would be downloaded at run time, and
after punctuation removal it splits almost exactly there).
This file imports only datatrove and the standard library: dolma-sql's environment does not have it.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup.minhash import (
    MinhashConfig,
    MinhashDedupBuckets,
    MinhashDedupCluster,
    MinhashDedupFilter,
    MinhashDedupSignature,
)
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.utils.hashing import HashConfig
from datatrove.utils.text import TextNormConfig
from datatrove.utils.word_tokenizers import WordTokenizer

STAGES = ("signatures", "buckets", "cluster", "filter")


class WhitespaceTokenizer(WordTokenizer):
    """Words split on whitespace, as dolma-sql splits them after normalisation."""

    def word_tokenize(self, text: str) -> list[str]:
        return text.split()

    def sent_tokenize(self, text: str) -> list[str]:
        return [text]

    def span_tokenize(self, text: str) -> list[tuple[int, int]]:
        return [(0, len(text))]


def minhash_config(args: argparse.Namespace) -> MinhashConfig:
    return MinhashConfig(
        n_grams=args.ngram_length,
        num_buckets=args.num_bands,
        hashes_per_bucket=args.band_size,
        seed=args.seed,
        norm_config=TextNormConfig(lowercase=True, norm_whitespace=True, remove_punctuation=True,
                                   norm_unicode_diacritics=False, norm_numbers=False),
        hash_config=HashConfig(precision=64, hash_fc="xxhash"),
    )


def input_files(documents: Path) -> list[Path]:
    return sorted(documents.glob("*.jsonl.gz"))


def run_stage(stage: str, args: argparse.Namespace) -> None:
    config, work, files = minhash_config(args), args.work, input_files(args.documents)
    reader = JsonlReader(str(args.documents), glob_pattern="*.jsonl.gz")
    executors = {
        "signatures": lambda: LocalPipelineExecutor(
            [reader, MinhashDedupSignature(str(work / "signatures"), config=config, language=WhitespaceTokenizer())],
            tasks=len(files), workers=args.workers, logging_dir=str(work / "logs" / "signatures")),
        "buckets": lambda: LocalPipelineExecutor(
            [MinhashDedupBuckets(str(work / "signatures"), str(work / "buckets"), config=config)],
            tasks=config.num_buckets, workers=args.workers, logging_dir=str(work / "logs" / "buckets")),
        "cluster": lambda: LocalPipelineExecutor(
            [MinhashDedupCluster(str(work / "buckets"), str(work / "remove_ids"), config=config, save_cluster_id=True)],
            tasks=1, workers=1, logging_dir=str(work / "logs" / "cluster")),
        "filter": lambda: LocalPipelineExecutor(
            [reader, MinhashDedupFilter(str(work / "remove_ids"), exclusion_writer=JsonlWriter(str(work / "removed"))),
             JsonlWriter(str(work / "deduplicated"))],
            tasks=len(files), workers=args.workers, logging_dir=str(work / "logs" / "filter")),
    }
    executor = executors[stage]()
    # fork, not datatrove's default forkserver: the workers are then this process's children, reaped by it, so
    # their CPU time reaches the bench's measure of this process (the forkserver's children never do)
    executor.start_method = "fork"
    executor.run()


def clusters(work: Path) -> list[list[tuple[int, int]]]:
    """Stage 3's clusters from its ``<file>.clusters`` records (document, cluster id), as (file, line) lists."""
    members: dict[int, list[tuple[int, int]]] = {}
    for path in sorted((work / "remove_ids").glob("*.clusters")):
        data = path.read_bytes()
        for doc, cluster in struct.iter_unpack("<2I", data):
            members.setdefault(cluster, []).append((int(path.stem), doc))
    return [sorted(group) for _, group in sorted(members.items())]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=[*STAGES, "all", "clusters"])
    parser.add_argument("documents", type=Path, help="folder of *.jsonl.gz document files")
    parser.add_argument("work", type=Path, help="folder for datatrove's intermediate files, logs and outputs")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ngram-length", type=int, default=5)
    parser.add_argument("--num-bands", type=int, default=14)
    parser.add_argument("--band-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.stage == "clusters":
        json.dump(clusters(args.work), sys.stdout)
        return 0
    for stage in STAGES if args.stage == "all" else (args.stage,):
        run_stage(stage, args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
