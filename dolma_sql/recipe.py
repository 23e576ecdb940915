"""The mixer recipe: dolma 1.2.1's mixer config, typed and validated before any work starts.

Every dolma mixer config (JSON or YAML) loads unchanged. Extensions over dolma are marked
"beyond dolma" and are all optional. Validation errors carry the config path of the field,
e.g. ``streams[0].span_replacement[0].min_score``.
"""

from __future__ import annotations

import math

import msgspec

from dolma_sql.errors import ConfigError

SYNTAXES = ("jsonpath", "jq", "sql")
CODECS = {None: ".gz", "gz": ".gz", "gzip": ".gz", "zst": ".zst", "zstd": ".zst", "": ""}


class Strict(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base for config sections: unknown fields are errors, not silently ignored."""


class FilterConfig(Strict):
    include: list[str] = []
    exclude: list[str] = []
    syntax: str = "jsonpath"  # beyond dolma: "sql" for native DuckDB predicates


class SpanReplacementConfig(Strict):
    span: str
    min_score: float | None = None
    max_score: float | None = None
    replacement: str = ""
    syntax: str = "jsonpath"


class OutputConfig(Strict):
    path: str
    max_size_in_bytes: int = 2 * 1024**3
    discard_fields: list[str] = []
    min_text_length: int | None = 0


class CompressionConfig(Strict):
    input: str | None = None
    output: str | None = None


class StreamConfig(Strict):
    name: str
    output: OutputConfig
    documents: list[str] = []
    attributes: list[str] = []
    filter: FilterConfig | None = None
    span_replacement: list[SpanReplacementConfig] = []
    compression: CompressionConfig = msgspec.field(default_factory=CompressionConfig)
    document_dir: str = "documents"  # beyond dolma: the path component swapped for attributes/<name>


class WorkDirConfig(Strict):
    input: str | None = None
    output: str | None = None


class MixerConfig(Strict):
    streams: list[StreamConfig] = []
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    processes: int = 1
    shuffle: bool = True
    dryrun: bool = False


def validate(config: MixerConfig) -> MixerConfig:
    """Checks msgspec's types cannot express; raises ConfigError naming the field."""
    if not config.streams:
        raise ConfigError("no streams to mix", path="streams", hint="add at least one stream with name, documents and output.path")
    if config.processes < 1:
        raise ConfigError(f"must be at least 1, got {config.processes}", path="processes")
    names: set[str] = set()
    for index, stream in enumerate(config.streams):
        where = f"streams[{index}]"
        if not stream.name or "/" in stream.name:
            raise ConfigError(f"invalid stream name {stream.name!r}", path=f"{where}.name", hint="use a non-empty name without '/'")
        if stream.name in names:
            raise ConfigError(f"duplicate stream name {stream.name!r}", path=f"{where}.name", hint="stream names prefix output files and must be unique")
        names.add(stream.name)
        if not stream.documents:
            raise ConfigError("no document globs", path=f"{where}.documents", hint="list the document files, e.g. data/documents/*.jsonl.gz")
        if stream.output.max_size_in_bytes <= 0:
            raise ConfigError("must be positive", path=f"{where}.output.max_size_in_bytes")
        if stream.output.min_text_length is not None and stream.output.min_text_length < 0:
            raise ConfigError("must be >= 0", path=f"{where}.output.min_text_length")
        for field in ("input", "output"):
            codec = getattr(stream.compression, field)
            if codec not in CODECS:
                raise ConfigError(f"unknown compression {codec!r}", path=f"{where}.compression.{field}", hint="use gz, zst or \"\" (plain)")
        if stream.filter is not None:
            _check_syntax(stream.filter.syntax, f"{where}.filter.syntax")
            if not stream.filter.include and not stream.filter.exclude:
                raise ConfigError("a filter needs include or exclude rules", path=f"{where}.filter", hint="remove the empty filter section or add rules")
        for position, span in enumerate(stream.span_replacement):
            span_where = f"{where}.span_replacement[{position}]"
            _check_syntax(span.syntax, f"{span_where}.syntax")
            if span.syntax == "sql":
                raise ConfigError("span selectors use jsonpath or jq", path=f"{span_where}.syntax")
            if span.min_score is None and span.max_score is None:
                raise ConfigError("either min_score or max_score must be set", path=span_where, hint="e.g. min_score: 0.5 to replace spans scoring 0.5 or more")
            for bound in ("min_score", "max_score"):
                value = getattr(span, bound)
                if value is not None and math.isnan(value):
                    raise ConfigError("must be a number", path=f"{span_where}.{bound}")
            if span.min_score is not None and span.max_score is not None and span.min_score >= span.max_score:
                raise ConfigError(
                    f"min_score {span.min_score} >= max_score {span.max_score} selects nothing",
                    path=f"{span_where}.min_score",
                    hint="spans are replaced when min_score <= score < max_score",
                )
    return config


def _check_syntax(syntax: str, where: str) -> None:
    if syntax not in SYNTAXES:
        raise ConfigError(f"unknown syntax {syntax!r}", path=where, hint="use jsonpath (default), jq or sql")


def output_extension(stream: StreamConfig) -> str:
    return CODECS[stream.compression.output]
