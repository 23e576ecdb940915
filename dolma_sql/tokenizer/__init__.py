"""Tokenizing a corpus into dolma/OLMo training memmaps, and reading them back.

The output is dolma's: ``part-<group>-<NNNNN>.npy`` raw token memmaps (no numpy header, little
endian ``dtype``) beside ``part-<group>-<NNNNN>.csv.gz`` with one ``start,end,id,src,loc`` row per
document (token offsets, end exclusive; source path; 1-based line). Each document is
``[bos]? + tokenizer(text.strip()) + [eos]?`` as dolma builds it (:mod:`.tokenizer`).

How it runs: input files are shuffled with ``seed`` and grouped as dolma groups them, one unit
per group (:mod:`.plan`). A group reads ``ring_size`` files at a time, document batches at a
time, and tokenizes each batch with the Rust tokenizer's multi-threaded ``encode_batch``; token
ids live in flat numpy arrays from then on. Documents are taken from the ring round-robin (or
sampled by file size), ``batch_size`` at a time, shuffled with a generator seeded by
``(seed, group)`` (:mod:`.reading`) and packed into memmaps of fewer than ``max_size`` tokens
(:mod:`.memmap`). The same seed therefore gives byte-identical output whatever the executor
(dolma's order changes from run to run). Memory is bounded by the ring's current batches plus
one shuffle batch.

Unlike dolma, a document of ``max_size`` tokens or more gets a memmap of its own (dolma loops
forever creating empty files); a group without tokens writes no files (dolma leaves a
``max_size`` memmap of zeros). Every file is committed whole, and the ledger records a group
once all its files are in place, so a killed run resumes by redoing only unfinished groups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dolma_sql.config.tokens import TokensConfig
from dolma_sql.runtime import Counters, Executor, run_units
from dolma_sql.tokenizer.memmap import MemmapSeries, remove_series
from dolma_sql.tokenizer.plan import GroupUnit, plan_tokens
from dolma_sql.tokenizer.readback import TokenizedDocument, iter_documents, tokens_stats
from dolma_sql.tokenizer.reading import iter_shuffled_batches
from dolma_sql.tokenizer.tokenizer import DocumentTokenizer

__all__ = ["TokenizedDocument", "TokensConfig", "TokensResult", "iter_documents", "run", "tokens_stats"]


@dataclass(frozen=True)
class TokensResult:
    """What a run did: ``counters`` sums its groups' (documents, tokens, memmaps, files; ``units_skipped``
    for groups a resumed run found done). A dry run only plans: its counters are empty."""

    files: int
    groups: int
    counters: Counters


def run(config: TokensConfig, *, executor: Executor, warn: Callable[[str], None] | None = None) -> TokensResult:
    """Tokenize ``config.documents`` into memmaps in ``config.destination``, one group per unit on ``executor``."""
    executor.prepare(__name__)
    plan = plan_tokens(config, warn=warn)
    if config.dryrun:
        return TokensResult(plan.files, plan.groups, {})
    counters = run_units(tokenize_group, plan.units, executor=executor, label="tokens", ledger=plan.ledger)
    return TokensResult(plan.files, plan.groups, counters)


def tokenize_group(unit: GroupUnit) -> Counters:
    """One unit: a group's files into its memmap series, from scratch (an earlier attempt's files are removed)."""
    config = unit.config
    remove_series(unit.prefix)
    tokenizer = DocumentTokenizer(config.tokenizer, config.dtype)
    rng = np.random.default_rng([config.seed, unit.group])
    documents = tokens = 0
    with MemmapSeries(unit.prefix, config.max_size, staging=config.work_dir.output) as series:
        for batch in iter_shuffled_batches(unit, tokenizer, rng):
            series.write(batch)
            documents += len(batch.lengths)
            tokens += int(batch.lengths.sum())
    return {"documents": documents, "tokens": tokens, "memmaps": series.count, "files": len(unit.files)}
