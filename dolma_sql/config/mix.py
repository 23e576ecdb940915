"""The mixer recipe: dolma 1.2.1's mixer config, typed and validated before any work starts.

Every dolma mixer config (JSON or YAML) loads unchanged. Extensions over dolma are marked
"beyond dolma" and are all optional. Validation errors carry the config path of the field,
e.g. ``streams[0].span_replacement[0].min_score``.
"""

from __future__ import annotations

import math

import msgspec

from dolma_sql.config.shared import CompressionConfig, Config, ExecutorConfig, WorkDirConfig
from dolma_sql.errors import ConfigError
from dolma_sql.storage.codecs import EXTENSIONS

SYNTAXES = ("jsonpath", "jq", "sql")
"""The languages of filter rules (``sql`` is beyond dolma; span selectors use the first two)."""

DEFAULT_OUTPUT_CODEC = "gz"
"""dolma writes gzip unless ``compression.output`` says otherwise."""


class FilterConfig(Config):
    include: list[str] = []
    """Rules a document must match one of to be kept (JSONPath, jq or SQL, per syntax)."""
    exclude: list[str] = []
    """Rules that drop a document when any matches."""
    syntax: str = "jsonpath"
    """Language of the rules: jsonpath, jq, or sql (DuckDB predicates; beyond dolma)."""


class SpanReplacementConfig(Config):
    span: str
    """JSONPath (or jq) selecting attribute spans, e.g. $.attributes.pii__EMAIL_ADDRESS."""
    min_score: float | None = None
    """Replace spans scoring at least this (min_score or max_score is required)."""
    max_score: float | None = None
    """Replace spans scoring below this."""
    replacement: str = ""
    """Text put in place of a span; {} stands for the span's text, "" deletes it."""
    syntax: str = "jsonpath"
    """Language of span: jsonpath or jq."""


class OutputConfig(Config):
    path: str
    """Folder the stream's output shards are written to (any URL)."""
    max_size_in_bytes: int = 2 * 1024**3
    """Largest size of an output shard before a new one is started."""
    discard_fields: list[str] = []
    """Top-level document fields dropped from the output (e.g. attributes)."""
    min_text_length: int | None = 0
    """Drop documents whose text, after span replacement, is shorter than this."""


class StreamConfig(Config):
    name: str
    """Name of the stream; it prefixes the output shards."""
    output: OutputConfig
    documents: list[str] = []
    """Globs of the document files to mix (any URL)."""
    attributes: list[str] = []
    """Attribute sets (folders under attributes/ beside documents/) merged into the documents."""
    filter: FilterConfig | None = None
    span_replacement: list[SpanReplacementConfig] = []
    compression: CompressionConfig = msgspec.field(default_factory=CompressionConfig)
    document_dir: str = "documents"
    """The path component of document files swapped for attributes/<set> (beyond dolma)."""

    def input_codec(self) -> str | None:
        """The codec of the document files (``None``: by each file's extension)."""
        return self.compression.codecs()[0]

    def output_extension(self) -> str:
        """The extension of the stream's output shards, from ``compression.output``."""
        codec = self.compression.codecs()[1]
        return EXTENSIONS[DEFAULT_OUTPUT_CODEC if codec is None else codec]


class MixerConfig(Config):
    streams: list[StreamConfig] = []
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    processes: int = 1
    """Number of processes to mix with (never more than shards)."""
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)
    shuffle: bool = True
    """Reshard documents into shards of max_size_in_bytes; false writes one output per input file."""
    dryrun: bool = False
    """Print the validated config and exit."""

    def validate(self) -> MixerConfig:
        """Checks msgspec's types cannot express; raises ConfigError naming the field."""
        if not self.streams:
            raise ConfigError("no streams to mix", path="streams", hint="add at least one stream with name, documents and output.path")
        if self.processes < 1:
            raise ConfigError(f"must be at least 1, got {self.processes}", path="processes")
        names: set[str] = set()
        for index, stream in enumerate(self.streams):
            where = f"streams[{index}]"
            if not stream.name or "/" in stream.name:
                raise ConfigError(f"invalid stream name {stream.name!r}", path=f"{where}.name", hint="use a non-empty name without '/'")
            if stream.name in names:
                raise ConfigError(f"duplicate stream name {stream.name!r}", path=f"{where}.name", hint="stream names prefix output files and must be unique")
            names.add(stream.name)
            _check_stream(stream, where)
        return self


def _check_stream(stream: StreamConfig, where: str) -> None:
    if not stream.documents:
        raise ConfigError("no document globs", path=f"{where}.documents", hint="list the document files, e.g. data/documents/*.jsonl.gz")
    if stream.output.max_size_in_bytes <= 0:
        raise ConfigError("must be positive", path=f"{where}.output.max_size_in_bytes")
    if stream.output.min_text_length is not None and stream.output.min_text_length < 0:
        raise ConfigError("must be >= 0", path=f"{where}.output.min_text_length")
    stream.compression.codecs(f"{where}.compression")
    if stream.filter is not None:
        _check_syntax(stream.filter.syntax, f"{where}.filter.syntax")
        if not stream.filter.include and not stream.filter.exclude:
            raise ConfigError("a filter needs include or exclude rules", path=f"{where}.filter", hint="remove the empty filter section or add rules")
    for position, span in enumerate(stream.span_replacement):
        _check_span_rule(span, f"{where}.span_replacement[{position}]")


def _check_span_rule(span: SpanReplacementConfig, where: str) -> None:
    _check_syntax(span.syntax, f"{where}.syntax")
    if span.syntax == "sql":
        raise ConfigError("span selectors use jsonpath or jq", path=f"{where}.syntax")
    if span.min_score is None and span.max_score is None:
        raise ConfigError("either min_score or max_score must be set", path=where, hint="e.g. min_score: 0.5 to replace spans scoring 0.5 or more")
    for bound in ("min_score", "max_score"):
        value = getattr(span, bound)
        if value is not None and math.isnan(value):
            raise ConfigError("must be a number", path=f"{where}.{bound}")
    if span.min_score is not None and span.max_score is not None and span.min_score >= span.max_score:
        raise ConfigError(
            f"min_score {span.min_score} >= max_score {span.max_score} selects nothing",
            path=f"{where}.min_score",
            hint="spans are replaced when min_score <= score < max_score",
        )


def _check_syntax(syntax: str, where: str) -> None:
    if syntax not in SYNTAXES:
        raise ConfigError(f"unknown syntax {syntax!r}", path=where, hint="use jsonpath (default), jq or sql")
