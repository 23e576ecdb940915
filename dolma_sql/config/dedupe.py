"""The dedupe config: dolma 1.2.1's ``DeduperConfig``, typed and validated before any work starts.

Every dolma dedupe config (JSON or YAML, or dolma's dotted flags) loads unchanged. Beyond dolma:
``dedupe.mode`` (``bloom`` or ``exact``), ``dedupe.lineage`` (exact mode's table),
``dedupe.all_partitions`` (every Bloom partition in one run), ``dedupe.exact_partitions``,
``bloom_filter.checkpoint_seconds``, ``report`` and ``executor``.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from dolma_sql.config.shared import CompressionConfig, Config, ExecutorConfig, WorkDirConfig
from dolma_sql.errors import ConfigError


class DocumentDedupeConfig(Config):
    attribute_name: str
    """Attribute key the spans of duplicate documents are written under."""
    key: str
    """JSONPath of the field compared, e.g. $.metadata.url or $.text."""


class NgramDedupeConfig(Config):
    ngram_length: int = 0
    """Words per n-gram (0: whole paragraphs are compared)."""
    stride: int = 0
    """Words skipped between the n-grams checked (0: every n-gram)."""
    overlap_threshold: float = 1.0
    """Fraction of a paragraph's n-grams seen before that marks it a duplicate."""
    skip_short_paragraphs: bool = False
    """Skip paragraphs with too few words for two n-grams (else they are hashed whole)."""


class ParagraphDedupeConfig(Config):
    attribute_name: str
    """Attribute key the spans of duplicate paragraphs are written under."""
    paragraph_separator: str = "\n"
    """String that separates paragraphs."""
    by_ngram: NgramDedupeConfig | None = None


class DedupeConfig(Config):
    """dolma's ``DedupeConfig`` plus ``mode`` (``bloom`` or ``exact``), ``lineage`` (exact mode's table),
    ``all_partitions`` and ``exact_partitions``.

    ``num_partitions``/``partition_index`` are dolma's: only the keys whose fingerprint falls in the
    partition are checked, and the attribute set and key get the suffix ``_<partition_index>``.
    ``all_partitions`` runs every partition in one command, each as one unit of the executor with its
    own filter (``<bloom_filter.file>.<index>``). ``exact_partitions``: how many hash partitions exact
    mode aggregates in separate units (one DuckDB aggregation uses every core of its machine: more
    are for a cluster); the outputs do not depend on it.
    """

    name: str | None = None
    """Name of the attribute set written (unset: the attribute name)."""
    documents: DocumentDedupeConfig | None = None
    paragraphs: ParagraphDedupeConfig | None = None
    skip_empty: bool = False
    """Skip empty and whitespace-only documents or paragraphs."""
    min_length: int = 0
    """Skip keys or paragraphs shorter than this."""
    min_words: int = 0
    """Skip documents or paragraphs with fewer words than this."""
    num_partitions: int = 1
    """Number of partitions the keys (or files) are split into."""
    partition_index: int = 0
    """The partition this run checks, in [0, num_partitions)."""
    file_partition: bool = False
    """Partition whole files instead of keys."""
    document_dir: str = "documents"
    """The path component of document files swapped for attributes/<name>."""
    mode: Literal["bloom", "exact"] = "bloom"
    """bloom (dolma's Bloom filter) or exact (DuckDB, no false positives, with a lineage table)."""
    lineage: str | None = None
    """Exact mode: file the lineage table (each duplicate and its first occurrence) is written to."""
    all_partitions: bool = False
    """Run every partition in one command, each with its own filter."""
    exact_partitions: int = 1
    """Exact mode: hash partitions aggregated as separate units (0: one per process)."""

    def attribute_name(self) -> str:
        """The attribute key written, with the partition suffix dolma adds (``_<index>``)."""
        return (self.documents or self.paragraphs).attribute_name + self.partition_suffix()

    def attribute_set(self) -> str:
        """The folder name under ``attributes/`` (``name``, else the attribute name), with the partition suffix."""
        return (self.name or (self.documents or self.paragraphs).attribute_name) + self.partition_suffix()

    def partition_suffix(self) -> str:
        return f"_{self.partition_index}" if self.num_partitions > 1 else ""

    def key_path(self) -> tuple[str, ...]:
        """The field names leading to the deduplicated string (``("text",)`` in paragraph mode)."""
        return parse_key_path(self.documents.key) if self.documents else ("text",)

    def ngrams(self) -> NgramDedupeConfig:
        return (self.paragraphs.by_ngram if self.paragraphs else None) or NgramDedupeConfig()


class BloomFilterConfig(Config):
    """dolma's ``BloomFilterConfig``; ``checkpoint_seconds``: how often a growing filter is saved
    (with the ledger records of the files it holds). ``DOLMA_SQL_CHECKPOINT_SECONDS`` overrides it."""

    file: str | None = None
    """The Bloom filter file: read if it exists, written at the end unless read_only."""
    read_only: bool | None = None
    """Only check documents against the filter, never add to it (required with mode bloom)."""
    size_in_bytes: int = 0
    """Size of a new filter (or estimated_doc_count and desired_false_positive_rate)."""
    estimated_doc_count: int = 0
    """Number of keys a new filter is sized for."""
    desired_false_positive_rate: float = 0.0
    """False-positive rate a new filter is sized for."""
    checkpoint_seconds: float = 120.0
    """How often a growing filter is saved with the ledger records of its files."""


class DeduperConfig(Config):
    """dolma's ``DeduperConfig`` plus ``report`` (a JSON file for the run's statistics) and ``executor``.

    ``is_s3_volume``: the destination is a mounted object store that cannot rename files, so every
    output is written whole in ``work_dir.output`` (or the system temp folder) and copied in place.
    ``work_dir.output`` holds the run's intermediate tables: any URL, which every worker must reach.
    """

    dedupe: DedupeConfig | None = None
    documents: list[str] = []
    """Globs of the document files to deduplicate (any URL)."""
    bloom_filter: BloomFilterConfig = msgspec.field(default_factory=BloomFilterConfig)
    processes: int = 1
    """Number of processes (never more than files)."""
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    compression: CompressionConfig = msgspec.field(default_factory=CompressionConfig)
    is_s3_volume: bool = False
    """The destination is a mounted object store that cannot rename files."""
    dryrun: bool = False
    """List the attribute file each document file would get, and exit."""
    report: str | None = None
    """File the run's statistics are written to as JSON."""

    def validate(self) -> DeduperConfig:
        dedupe = self.dedupe
        if dedupe is None:
            raise ConfigError("the dedupe section is missing", path="dedupe", hint="set dedupe.documents or dedupe.paragraphs")
        if (dedupe.documents is None) == (dedupe.paragraphs is None):
            raise ConfigError(
                "either dedupe.documents or dedupe.paragraphs must be specified (not both)",
                path="dedupe",
                hint="--dedupe.documents.attribute_name A --dedupe.documents.key '$.metadata.url', or --dedupe.paragraphs.attribute_name A",
            )
        for field in ("min_length", "min_words"):
            if getattr(dedupe, field) < 0:
                raise ConfigError(f"must be >= 0, got {getattr(dedupe, field)}", path=f"dedupe.{field}")
        if dedupe.num_partitions < 1 or not 0 <= dedupe.partition_index < dedupe.num_partitions:
            raise ConfigError(
                f"partition_index {dedupe.partition_index} is not in [0, num_partitions={dedupe.num_partitions})",
                path="dedupe.partition_index",
            )
        if dedupe.all_partitions and dedupe.mode == "exact":
            raise ConfigError(
                "exact mode is not partitioned by key: its aggregation is already spread over units",
                path="dedupe.all_partitions",
                hint="drop dedupe.all_partitions (set dedupe.exact_partitions to choose how many units aggregate)",
            )
        if dedupe.exact_partitions < 1:
            raise ConfigError(f"must be >= 1, got {dedupe.exact_partitions}", path="dedupe.exact_partitions")
        ngrams = dedupe.ngrams()
        if ngrams.ngram_length < 0 or ngrams.stride < 0:
            raise ConfigError("ngram_length and stride must be >= 0", path="dedupe.paragraphs.by_ngram")
        if dedupe.paragraphs is not None and dedupe.paragraphs.paragraph_separator == "":
            raise ConfigError("must not be empty", path="dedupe.paragraphs.paragraph_separator")
        if dedupe.documents is not None:
            _check_document_key(dedupe.key_path())
        if dedupe.mode == "bloom":
            self._validate_bloom_filter()
        self.compression.codecs()
        return self

    def _validate_bloom_filter(self) -> None:
        options = self.bloom_filter
        if not options.file:
            raise ConfigError(
                "bloom_filter.file is required",
                path="bloom_filter.file",
                hint="--bloom_filter.file PATH (created if missing), or --exact for exact dedup",
            )
        if options.read_only is None:
            raise ConfigError(
                "bloom_filter.read_only is required",
                path="bloom_filter.read_only",
                hint="--no-bloom_filter.read_only to build/extend the filter, --bloom_filter.read_only to only check against it",
            )
        rate = options.desired_false_positive_rate
        if options.size_in_bytes < 0 or options.estimated_doc_count < 0 or not 0 <= rate < 1:
            raise ConfigError(
                "bloom_filter sizes must be non-negative and desired_false_positive_rate below 1",
                path="bloom_filter",
            )
        if options.checkpoint_seconds < 0:
            raise ConfigError(f"must be >= 0, got {options.checkpoint_seconds}", path="bloom_filter.checkpoint_seconds")


_KEY_PART = r"\.([A-Za-z_][\w-]*)|\[('[^']*'|\"[^\"]*\")\]"


def parse_key_path(key: str) -> tuple[str, ...]:
    """``$.metadata.url`` / ``$['metadata']['url']`` -> field names; anything fancier is refused."""
    match = re.fullmatch(rf"\$((?:{_KEY_PART})+)", key.strip())
    if not match:
        raise ConfigError(
            f"unsupported key {key!r}",
            path="dedupe.documents.key",
            hint="use a JSONPath to one field, such as $.id, $.text or $.metadata.url",
        )
    return tuple(m.group(1) or m.group(2)[1:-1] for m in re.finditer(_KEY_PART, match.group(1)))


def _check_document_key(path: tuple[str, ...]) -> None:
    if path[0] == "id" and len(path) > 1:
        raise ConfigError("a key inside the document id is not supported", path="dedupe.documents.key", hint="key on $.id itself")
    if any("." in name or not name for name in path):
        raise ConfigError(
            "a key field name may not be empty or contain '.'",
            path="dedupe.documents.key",
            hint="documents are read by dotted field names, such as $.metadata.url",
        )
