"""Planning a dedupe: the input files in order with their attribute files, what every worker needs
to know (:class:`Settings`), how outputs are written, and the work folder of the intermediate tables."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
import xxhash

from dolma_sql.config.dedupe import EXACT_MEMORY_MB, DeduperConfig
from dolma_sql.deduper.fingerprints import exact_scheme
from dolma_sql.errors import ConfigError
from dolma_sql.layout import swap_segment
from dolma_sql.runtime.ledger import LEDGER_FOLDER, fingerprint
from dolma_sql.storage import urls


ATTRIBUTE_RECORDS = {"bloom": "dedupe", "minhash": "dedupe-minhash-attributes"}
"""The ledger command whose records stand for attribute files, by the mode that writes them (exact mode keeps one record
of its run beside the lineage table: :mod:`.finished_run`)."""


@dataclass(frozen=True)
class Settings:
    """Everything a worker needs, derived from the validated config (picklable)."""

    mode: str  # "documents" | "paragraphs"
    attribute: str
    key_path: tuple[str, ...]
    separator: str
    ngram_length: int
    stride: int
    overlap_threshold: float
    skip_short_paragraphs: bool
    skip_empty: bool
    min_length: int
    min_words: int
    num_partitions: int
    partition_index: int
    exact: bool
    threads: int


def settings_of(config: DeduperConfig) -> Settings:
    dedupe = config.dedupe
    ngrams = dedupe.ngrams()
    return Settings(
        mode="documents" if dedupe.documents else "paragraphs",
        attribute=dedupe.attribute_name(),
        key_path=dedupe.key_path(),
        separator=dedupe.paragraphs.paragraph_separator if dedupe.paragraphs else "\n",
        ngram_length=ngrams.ngram_length,
        stride=ngrams.stride,
        overlap_threshold=ngrams.overlap_threshold,
        skip_short_paragraphs=ngrams.skip_short_paragraphs,
        skip_empty=dedupe.skip_empty,
        min_length=dedupe.min_length,
        min_words=dedupe.min_words,
        num_partitions=dedupe.num_partitions,
        partition_index=dedupe.partition_index,
        exact=dedupe.mode == "exact",
        threads=max(1, (os.cpu_count() or 1) // max(1, config.processes)),
    )


@dataclass(frozen=True)
class Writing:
    """How every output of a run is written: the attribute files' codec (``None``: by extension), and
    the commit protocol's staging folder and ``rename`` (off on a volume that cannot rename, dolma's ``is_s3_volume``)."""

    codec: str | None
    staging: str | None
    rename: bool


def writing_of(config: DeduperConfig) -> Writing:
    staging = config.work_dir.output if config.work_dir.output and urls.is_local(config.work_dir.output) else None
    return Writing(codec=config.compression.codecs()[1], staging=staging, rename=not config.is_s3_volume)


@dataclass(frozen=True)
class FileJob:
    """One input file, its attribute file, and its size in bytes."""

    path: str
    attributes: str
    size: int


def plan_files(config: DeduperConfig, *, warn: Callable[[str], None] | None = None) -> list[FileJob]:
    """Input files in order, with their attribute file (every ``/<document_dir>/`` component is swapped, as dolma does)."""
    dedupe = config.dedupe
    jobs = []
    for path in urls.expand_globs(config.documents, config_path="documents", warn=warn):
        target = swap_segment(path, dedupe.document_dir, f"attributes/{dedupe.attribute_set()}")
        if target is None:
            raise ConfigError(
                f"path ({path}) does not contain the expected document directory '/{dedupe.document_dir}/'",
                path="dedupe.document_dir",
                hint=f"keep documents under a '{dedupe.document_dir}/' folder, or set dedupe.document_dir to the folder name they use",
            )
        if dedupe.file_partition and dedupe.num_partitions > 1:
            if xxhash.xxh64_intdigest(path.encode()) % dedupe.num_partitions != dedupe.partition_index:
                continue
        jobs.append(FileJob(path, target, urls.size(path)))
    return jobs


def ledger_options(config: DeduperConfig) -> dict:
    """Everything that shapes the attribute files, so that a rerun with other options redoes them."""
    dedupe = msgspec.structs.replace(config.dedupe, lineage=None, all_partitions=False, exact_partitions=1, exact_memory_mb=EXACT_MEMORY_MB)
    options: dict = {"dedupe": dedupe, "codecs": config.compression.codecs()}
    if config.dedupe.mode == "bloom":
        options["bloom_filter"] = msgspec.structs.replace(config.bloom_filter, checkpoint_seconds=0.0)
    return options


def exact_partitions(config: DeduperConfig) -> int:
    """How many hash partitions the keys are split into: ``dedupe.exact_partitions`` in exact mode, else one."""
    return config.dedupe.exact_partitions if config.dedupe.mode == "exact" else 1


def work_folder(config: DeduperConfig, jobs: list[FileJob]) -> str:
    """The folder of this run's intermediate tables, named by the options and files so that a rerun after a
    crash finds the files already extracted: in ``work_dir.output`` (any URL that every worker reaches), else
    in a ledger folder next to the outputs (``attributes/.dolma-sql/``: every worker writes there), else (a
    volume that cannot rename, or no files) in the system temp folder."""
    scheme = exact_scheme() if config.dedupe.mode == "exact" else None
    identity = fingerprint([ledger_options(config), exact_partitions(config), [(job.path, job.size, job.attributes) for job in jobs], scheme])
    name = f"dolma-sql-dedupe-{identity}"
    if config.work_dir.output:
        return urls.join(config.work_dir.output, name)
    if jobs and not config.is_s3_volume:
        return urls.join(urls.parent(attribute_root(config, jobs)), LEDGER_FOLDER, name)
    return os.path.join(tempfile.gettempdir(), name)


def attribute_root(config: DeduperConfig, jobs: list[FileJob]) -> str:
    """The attribute set's folder, ``.../attributes/<set>``, of the first file (else its attribute file's folder)."""
    first = jobs[0].attributes
    parts = first.split("/")
    for index in range(len(parts) - 2):
        if parts[index] == "attributes" and parts[index + 1] == config.dedupe.attribute_set():
            return "/".join(parts[: index + 2])
    return urls.parent(first)


def lineage_url(config: DeduperConfig, jobs: list[FileJob]) -> str:
    """Exact mode's lineage table: ``dedupe.lineage``, else ``lineage.parquet`` at the root of the attribute set."""
    return config.dedupe.lineage or urls.join(attribute_root(config, jobs), "lineage.parquet")
