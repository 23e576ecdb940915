"""The dedupe config: dolma 1.2.1's ``DeduperConfig``, typed and validated before any work starts.

Every dolma dedupe config (JSON or YAML, or dolma's dotted flags) loads unchanged. Beyond dolma:
``dedupe.mode`` (``bloom``, ``exact`` or ``minhash``), ``dedupe.minhash`` (near-duplicates),
``dedupe.lineage`` (exact and minhash modes' table),
``dedupe.all_partitions`` (every Bloom partition in one run), ``dedupe.exact_partitions``, ``dedupe.exact_memory_mb``,
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


class MinhashNormalizeConfig(Config):
    """How a text is normalised before it is cut into shingles, in this order (docs/dedupe.md spells it out)."""

    nfkc: bool = True
    """Unicode NFKC normalisation (compatibility forms folded: ligatures, full-width letters...)."""
    lowercase: bool = True
    """Lower-case every letter (Unicode)."""
    punctuation: bool = True
    """Every run of Unicode punctuation and symbols (\\p{P}, \\p{S}) becomes a space."""
    digits: bool = False
    """Every run of digits (\\p{Nd}) becomes 0."""


class MinhashKeepConfig(Config):
    """Which document of a cluster is kept: ``first`` by (file, line), or the ``highest``/``lowest`` value of a
    document ``field`` or of an ``attribute`` (ties and documents without a value: by (file, line))."""

    by: Literal["first", "highest", "lowest"] = "first"
    """first (by file, then line), highest or lowest (value of field or attribute)."""
    field: str | None = None
    """Dotted document field holding a number, e.g. metadata.quality (with by highest or lowest)."""
    attribute: str | None = None
    """<attribute set>/<key>: the score of the key's first span in that set's attribute files (with by highest or lowest)."""


class MinhashDedupeConfig(Config):
    """MinHash-LSH near-duplicates: documents whose shingle sets share a band bucket are clustered; the kept
    document of each cluster is chosen by ``keep``, the others get a document span under ``attribute_name``."""

    attribute_name: str
    """Attribute key of the span on each document to drop (also <name>_cluster_id and <name>_cluster_size)."""
    shingle: Literal["words", "chars"] = "words"
    """Shingles of ngram_length words (split on whitespace after normalisation) or characters."""
    ngram_length: int = 5
    """Words (or characters) per shingle; a shorter text is one shingle."""
    num_bands: int = 14
    """LSH bands: documents sharing any band's bucket are candidates."""
    band_size: int = 8
    """Hash functions per band (num_bands x band_size 64-bit minimums per document)."""
    seed: int = 1
    """Seed of the hash functions."""
    threshold: float | None = None
    """Keep only candidate pairs whose estimated Jaccard similarity (full signatures) is >= this."""
    normalize: MinhashNormalizeConfig = msgspec.field(default_factory=MinhashNormalizeConfig)
    keep: MinhashKeepConfig = msgspec.field(default_factory=MinhashKeepConfig)
    index: str | None = None
    """Folder (any URL) the corpus' signature index is written to and kept in, for later runs' against."""
    against: list[str] = []
    """Existing signature indexes (read-only) to dedupe against: their documents are always kept."""

    def num_hashes(self) -> int:
        return self.num_bands * self.band_size

    def validate(self) -> None:
        for field in ("ngram_length", "num_bands", "band_size"):
            if getattr(self, field) < 1:
                raise ConfigError(f"must be >= 1, got {getattr(self, field)}", path=f"dedupe.minhash.{field}")
        if self.num_hashes() > 1024:
            raise ConfigError(f"num_bands x band_size is {self.num_hashes()}, more than 1024", path="dedupe.minhash", hint="the defaults are 14 x 8")
        if not 0 <= self.seed < 2**63:
            raise ConfigError(f"must be in [0, 2**63), got {self.seed}", path="dedupe.minhash.seed")
        if self.threshold is not None and not 0 < self.threshold <= 1:
            raise ConfigError(f"must be in (0, 1], got {self.threshold}", path="dedupe.minhash.threshold")
        keep = self.keep
        sources = [name for name in ("field", "attribute") if getattr(keep, name)]
        if keep.by == "first" and sources:
            raise ConfigError(f"keep.{sources[0]} needs keep.by highest or lowest", path="dedupe.minhash.keep.by")
        if keep.by != "first" and len(sources) != 1:
            raise ConfigError(
                f"keep.by {keep.by} needs exactly one of keep.field and keep.attribute",
                path="dedupe.minhash.keep",
                hint="e.g. --dedupe.minhash.keep.field metadata.quality, or --dedupe.minhash.keep.attribute quality/score",
            )
        if keep.field is not None and (not keep.field or any(not part for part in keep.field.split("."))):
            raise ConfigError(f"not a dotted field name: {keep.field!r}", path="dedupe.minhash.keep.field", hint="e.g. metadata.quality")
        if keep.attribute is not None and not re.fullmatch(r"[^/]+/[^/]+", keep.attribute):
            raise ConfigError(f"not <attribute set>/<key>: {keep.attribute!r}", path="dedupe.minhash.keep.attribute", hint="e.g. quality/score")


EXACT_MEMORY_MB = 160
"""A bound that holds an aggregation of a few million keys with little spilling, small beside the rest
of the process (libraries, a file's tables), so that a unit per core fits a node; more keys spill."""
MIN_EXACT_MEMORY_MB = 64


class DedupeConfig(Config):
    """dolma's ``DedupeConfig`` plus ``mode`` (``bloom`` or ``exact``), ``lineage`` (exact mode's table),
    ``all_partitions``, ``exact_partitions`` and ``exact_memory_mb``.

    ``num_partitions``/``partition_index`` are dolma's: only the keys whose fingerprint falls in the
    partition are checked, and the attribute set and key get the suffix ``_<partition_index>``.
    ``all_partitions`` runs every partition in one command, each as one unit of the executor with its
    own filter (``<bloom_filter.file>.<index>``). ``exact_partitions``: how many hash partitions exact
    mode aggregates in separate units (one DuckDB aggregation uses every core of its machine: more
    are for a cluster); the outputs do not depend on it. ``exact_memory_mb``: the memory each of exact mode's
    DuckDB units holds at most (it spills the rest to a scratch folder), whatever the machine's size, since a
    node may run a unit per core; the outputs do not depend on it either.
    """

    name: str | None = None
    """Name of the attribute set written (unset: the attribute name)."""
    documents: DocumentDedupeConfig | None = None
    paragraphs: ParagraphDedupeConfig | None = None
    minhash: MinhashDedupeConfig | None = None
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
    mode: Literal["bloom", "exact", "minhash"] = "bloom"
    """bloom (dolma's Bloom filter), exact (DuckDB, no false positives, with a lineage table) or minhash (set by dedupe.minhash)."""
    lineage: str | None = None
    """Exact and minhash modes: file the lineage table (each removed document and the one kept) is written to."""
    all_partitions: bool = False
    """Run every partition in one command, each with its own filter."""
    exact_partitions: int = 1
    """Exact mode: hash partitions aggregated as separate units (0: one per process)."""
    exact_memory_mb: int = EXACT_MEMORY_MB
    """Exact mode: MiB of memory a unit's DuckDB uses at most (at most its share of the machine's); it spills beyond."""

    def attribute_name(self) -> str:
        """The attribute key written, with the partition suffix dolma adds (``_<index>``)."""
        return (self.documents or self.paragraphs or self.minhash).attribute_name + self.partition_suffix()

    def attribute_set(self) -> str:
        """The folder name under ``attributes/`` (``name``, else the attribute name), with the partition suffix."""
        return (self.name or (self.documents or self.paragraphs or self.minhash).attribute_name) + self.partition_suffix()

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
        if sum(section is not None for section in (dedupe.documents, dedupe.paragraphs, dedupe.minhash)) != 1:
            raise ConfigError(
                "either dedupe.documents or dedupe.paragraphs or dedupe.minhash must be specified (exactly one)",
                path="dedupe",
                hint="--dedupe.documents.attribute_name A --dedupe.documents.key '$.metadata.url', --dedupe.paragraphs.attribute_name A, or --dedupe.minhash.attribute_name A",
            )
        if dedupe.minhash is not None:
            return self._validate_minhash()
        if dedupe.mode == "minhash":
            raise ConfigError("mode minhash needs the dedupe.minhash section", path="dedupe.mode", hint="--dedupe.minhash.attribute_name A")
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
        if dedupe.exact_memory_mb < MIN_EXACT_MEMORY_MB:
            raise ConfigError(
                f"must be >= {MIN_EXACT_MEMORY_MB}, got {dedupe.exact_memory_mb}",
                path="dedupe.exact_memory_mb",
                hint="DuckDB needs a few buffers per thread before it can spill",
            )
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

    def _validate_minhash(self) -> DeduperConfig:
        dedupe = self.dedupe
        if dedupe.mode == "exact":
            raise ConfigError("dedupe.minhash is its own mode, not exact", path="dedupe.mode", hint="drop --exact / dedupe.mode exact")
        dedupe.mode = "minhash"  # the section chooses the mode
        if dedupe.num_partitions != 1 or dedupe.all_partitions or dedupe.file_partition:
            raise ConfigError(
                "minhash mode is not partitioned: its stages are already spread over units",
                path="dedupe.num_partitions",
                hint="drop dedupe.num_partitions, all_partitions and file_partition",
            )
        dedupe.minhash.validate()
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
