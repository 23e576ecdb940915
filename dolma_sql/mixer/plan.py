"""A recipe's plan: each stream compiled to its query, its files grouped into output shards (the units).

Everything here runs before any shard starts, in the calling process, so a bad expression, glob
or key is reported before any work is done.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec
import numpy as np

from dolma_sql import layout, storage
from dolma_sql.config.mix import MixerConfig, StreamConfig
from dolma_sql.errors import InputError
from dolma_sql.formats.lines import head_lines
from dolma_sql.spans import split_template
from dolma_sql.text import UNICODE_WHITESPACE

KEY_SAMPLE_BYTES = 256 << 10
"""How much of an attribute file is read for the keys its lines have (taggers write every key on every line)."""


@dataclass(frozen=True)
class SpanRuleRun:
    """What a worker needs of one span_replacement entry."""

    min_score: float
    max_score: float
    template: tuple[str, ...] | None  # None: the replacement is a jq value computed per document


@dataclass(frozen=True)
class StreamPlan:
    """A stream's compiled query and rules: computed once, before any work starts.

    It holds the query's SQL, not its AST: every shard task ships the plan to a worker, and
    unpickling a sqlglot tree costs more than a small shard's counting.
    """

    index: int
    stream: StreamConfig
    sql: str
    attribute_keys: frozenset[str]  # attribute keys the recipe reads, for "key not found" warnings
    span_rules: tuple[SpanRuleRun, ...]


@dataclass(frozen=True)
class ShardTask:
    """One unit of work: one output shard of a stream, from its input files.

    ``staging`` is dolma's ``work_dir.output``, where an output bound for an object store is
    written before it is uploaded; ``input_staging`` dolma's ``work_dir.input``, where remote
    inputs are downloaded before they are read (streamed when it is unset).
    """

    plan: StreamPlan
    shard: layout.ShardPlan
    allow_missing_attributes: bool
    staging: str | None = None
    input_staging: str | None = None

    @property
    def key(self) -> str:
        return self.shard.output

    @property
    def inputs(self) -> tuple[str, ...]:
        """The document files and their attribute files: a shard whose inputs changed is mixed again."""
        stream = self.plan.stream
        attributes = (layout.attribute_path(path, name, document_dir=stream.document_dir) for path in self.shard.inputs for name in stream.attributes)
        return (*self.shard.inputs, *attributes)

    @property
    def size(self) -> int:
        return self.shard.size


def compile_recipe(config: MixerConfig, *, measured: bool = False) -> list[StreamPlan]:
    """Compile every stream's filters and span selectors (pure: no file is touched).

    With ``measured`` the query also returns each rule's decision and the UTF-8 length of each
    text (trimmed of whitespace too, where ``min_text_length`` needs it): what a dry run counts.
    """
    from dolma_sql.compile import SpanRule, compile_stream  # here, so shard workers never import sqlglot

    plans = []
    for index, stream in enumerate(config.streams):
        filter_ = stream.filter
        query = compile_stream(
            include=list(filter_.include) if filter_ else [],
            exclude=list(filter_.exclude) if filter_ else [],
            syntax=filter_.syntax if filter_ else "jsonpath",
            spans=[SpanRule(span=s.span, syntax=s.syntax, replacement=s.replacement) for s in stream.span_replacement],
            n_attribute_sets=len(stream.attributes),
            config_path=f"streams[{index}]",
            alignment_check=True,
            rule_columns=measured,
            text_bytes=measured,
            stripped_text_bytes=UNICODE_WHITESPACE if measured and stream.output.min_text_length else None,
        )
        rules = tuple(
            SpanRuleRun(
                min_score=-np.inf if s.min_score is None else s.min_score,
                max_score=np.inf if s.max_score is None else s.max_score,
                template=None if s.replacement.startswith("$") else split_template(_unescape_dollar(s.replacement)),
            )
            for s in stream.span_replacement
        )
        plans.append(StreamPlan(index=index, stream=stream, sql=query.sql, attribute_keys=query.attribute_keys, span_rules=rules))
    return plans


def _unescape_dollar(replacement: str) -> str:
    """``\\$`` at the start is a literal dollar, not a jq expression."""
    return replacement[1:] if replacement.startswith("\\$") else replacement


def plan_shards(
    plans: list[StreamPlan], config: MixerConfig, *, allow_missing_attributes: bool, warn: Callable[[str], None]
) -> list[ShardTask]:
    """Expand globs and group files into output shards, for every stream."""
    tasks = []
    for plan in plans:
        stream = plan.stream
        files = storage.expand_globs(list(stream.documents), config_path=f"streams[{plan.index}].documents", warn=warn)
        if config.shuffle:
            shards = layout.plan_shards(
                files,
                output_dir=stream.output.path,
                stream=stream.name,
                max_size_in_bytes=stream.output.max_size_in_bytes,
                extension=stream.output_extension(),
            )
        else:
            shards = layout.plan_unshuffled(files, output_dir=stream.output.path, document_dir=stream.document_dir, codec=stream.compression.codecs()[1])
        _check_first_attribute_files(plan, files[0], allow_missing=allow_missing_attributes, warn=warn)
        tasks.extend(ShardTask(plan, shard, allow_missing_attributes, config.work_dir.output, config.work_dir.input) for shard in shards)
    return tasks


class _AttributeKeys(msgspec.Struct):
    attributes: dict[str, msgspec.Raw] = {}


_decode_attribute_keys = msgspec.json.Decoder(_AttributeKeys).decode


def _check_first_attribute_files(plan: StreamPlan, first_file: str, *, allow_missing: bool, warn: Callable[[str], None]) -> None:
    """Before any shard starts: an attribute set with no file for the stream's first document file is an error
    (unless ``allow_missing``), as its shard would find; referenced attribute keys that the first lines of the
    first attribute files lack are a warning.

    A missing key is legal (a filter on it simply never matches), but it is usually a typo, so say which keys
    exist. Only the keys are decoded (with msgspec: a DuckDB connection and query would cost more than the check).
    """
    stream = plan.stream
    available: set[str] = set()
    for name in stream.attributes:
        path = layout.attribute_path(first_file, name, document_dir=stream.document_dir)
        if not storage.exists(path):
            if not allow_missing:
                raise missing_attribute_file(name, path, first_file, plan.index)
            continue
        batch = head_lines(path, KEY_SAMPLE_BYTES) if plan.attribute_keys else None
        for line in batch.lines.to_pylist() if batch is not None else []:
            try:
                available.update(_decode_attribute_keys(line).attributes)
            except (msgspec.DecodeError, RecursionError):  # a malformed or too deep line is reported, with its number, when its shard runs
                continue
    missing = sorted(plan.attribute_keys - available) if stream.attributes else []
    if missing:
        warn(
            f"streams[{plan.index}]: filter keys {missing} are in none of the first lines of the attribute files of {first_file}; "
            f"available keys: {sorted(available)}"
        )


def missing_attribute_file(name: str, expected: str, documents: str, index: int) -> InputError:
    """The error for a documents file whose attribute file of set ``name`` is missing."""
    return InputError(
        f"attribute set {name!r} has no file for these documents (expected {expected})",
        path=documents,
        hint=f"run the tagger/deduper that writes {name!r}, fix streams[{index}].attributes, or pass --allow-missing-attributes to mix without it",
    )
