"""Recipe impact reports (``dolma-sql mix --dry-run``): what each rule removes, from the mixer's own plan and reads.

A dry run runs the mix's compiled query (measured: with each rule's decision and every text's UTF-8
length), its span checks and its span kernel, but decodes no document, merges no attribute and
writes nothing: texts are decoded only where a span rule edits them, and every other length comes
from the query, so the kept totals agree exactly with what ``mix`` writes. Per stream it reports
what comes in, and for each rule what it removes *alone* (as if it were the only rule) and
*marginally* (what it removes that no earlier rule already removed, in recipe order: the include
stage, then excludes in order, then span replacements, then ``min_text_length``). Token counts are
estimates: text bytes / 4, the usual ratio for English with BPE tokenizers.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from dolma_sql import storage
from dolma_sql.config.mix import MixerConfig, StreamConfig
from dolma_sql.formats.lines import LineBatch
from dolma_sql.mixer.documents import decode_texts, select_rows, trimmed_utf8_lengths, utf8_lengths
from dolma_sql.formats.nesting import naming_the_line
from dolma_sql.mixer.edits import collect_edits
from dolma_sql.mixer.plan import ShardTask
from dolma_sql.mixer.shard import queried_batches
from dolma_sql.runtime import Counters
from dolma_sql.spans import SpanEdits, apply_spans

if TYPE_CHECKING:  # rich draws the report in the caller; the workers that count never import it
    from rich.console import Console
    from rich.table import Table

BYTES_PER_TOKEN = 4


def count_shard(task: ShardTask) -> Counters:
    """Count what mixing one shard would remove, rule by rule (the unit function of a dry run)."""
    counters: Counters = {"shards": 1}
    for batch, _, result in queried_batches(task):
        _count_batch(batch, result, task, counters)
    return counters


def _count_batch(batch: LineBatch, result: pa.Table, task: ShardTask, counters: Counters) -> None:
    """Count what ``mix`` would keep of a batch, from the query's text lengths; only edited texts are decoded."""
    counters["documents"] = counters.get("documents", 0) + len(batch)
    report = StreamCounters(counters, task.plan.index)
    report.count_filters(result)
    kept_rows = np.flatnonzero(result.column("keep").to_numpy(zero_copy_only=False))
    text_bytes = result.column("text_bytes").to_numpy().take(kept_rows)
    min_length = task.plan.stream.output.min_text_length or 0
    stripped = result.column("stripped_text_bytes").to_numpy().take(kept_rows) if min_length else None
    edits_by_rule = collect_edits(result, kept_rows, batch, task) if len(kept_rows) else None
    if edits_by_rule is not None:
        edits, edited, rule_of_edit = edits_by_rule
        with naming_the_line(batch.path, kept_rows[edited] + batch.first_line):
            texts = decode_texts(select_rows(batch.lines, kept_rows[edited]))
        replaced = report.count_span_rules(texts, edits, rule_of_edit, len(task.plan.span_rules))
        text_bytes[edited] = utf8_lengths(replaced)
        if stripped is not None:
            stripped[edited] = trimmed_utf8_lengths(replaced)
    too_short = stripped < min_length if stripped is not None else np.zeros(len(kept_rows), dtype=bool)
    report.count_kept(text_bytes, too_short)


class StreamCounters:
    """Adds one batch's rule counts to a shard's counters, under keys prefixed by the stream."""

    def __init__(self, counters: Counters, stream_index: int) -> None:
        self.counters = counters
        self.prefix = f"s{stream_index}."

    def add(self, key: str, value: float) -> None:
        key = self.prefix + key
        self.counters[key] = self.counters.get(key, 0) + float(value)

    def count_filters(self, result: pa.Table) -> None:
        """Per include/exclude rule: documents and text bytes removed alone and marginally."""
        text_bytes = result.column("text_bytes").to_numpy().astype(np.int64)
        rule_names = [name for name in result.column_names if name.startswith(("include_", "exclude_")) or name == "keep"]
        columns = {name: np.asarray(result.column(name).to_numpy(zero_copy_only=False), dtype=bool) for name in rule_names}
        includes = [columns[f"include_{i}"] for i in range(sum(n.startswith("include_") for n in columns))]
        excludes = [columns[f"exclude_{i}"] for i in range(sum(n.startswith("exclude_") for n in columns))]
        self.add("in.documents", len(text_bytes))
        self.add("in.text_bytes", text_bytes.sum())
        removed = np.zeros(len(text_bytes), dtype=bool)
        if includes:
            for index, matches in enumerate(includes):
                self._removal(f"include_{index}", text_bytes, ~matches, ~matches)
            removed = ~np.logical_or.reduce(includes)
            self._removal("include", text_bytes, removed, removed)
        for index, matches in enumerate(excludes):
            self._removal(f"exclude_{index}", text_bytes, matches, matches & ~removed)
            removed |= matches
        if not np.array_equal(~removed, columns["keep"]):
            raise AssertionError("rule columns disagree with the keep column")  # compiler invariant
        self.add("filtered.documents", (~removed).sum())
        self.add("filtered.text_bytes", text_bytes[~removed].sum())

    def _removal(self, rule: str, text_bytes: np.ndarray, alone: np.ndarray, marginal: np.ndarray) -> None:
        for kind, mask in (("alone", alone), ("marginal", marginal)):
            self.add(f"{rule}.{kind}.documents", mask.sum())
            self.add(f"{rule}.{kind}.text_bytes", text_bytes[mask].sum())

    def count_span_rules(self, texts: pa.Array, edits: SpanEdits, rule_of_edit: np.ndarray, rules: int) -> pa.Array:
        """Per span rule: documents changed and text bytes removed when the rule applies alone; returns the texts with every edit applied."""
        before = utf8_lengths(texts)
        for rule in range(rules):
            mask = rule_of_edit == rule
            if not mask.any():
                continue
            after = utf8_lengths(apply_spans(texts, edits.subset(mask)))
            self.add(f"span_{rule}.documents", (after != before).sum())
            self.add(f"span_{rule}.text_bytes_removed", (before - after).sum())
        replaced = apply_spans(texts, edits)
        self.add("spans.text_bytes_removed", (before - utf8_lengths(replaced)).sum())
        return replaced

    def count_kept(self, text_bytes: np.ndarray, too_short: np.ndarray) -> None:
        """The documents that pass the filters, split by ``min_text_length`` (``text_bytes`` after span replacement)."""
        self.add("min_text_length.documents", too_short.sum())
        self.add("min_text_length.text_bytes", text_bytes[too_short].sum())
        self.add("kept.documents", (~too_short).sum())
        self.add("kept.text_bytes", text_bytes[~too_short].sum())


def build_report(config: MixerConfig, totals: Counters) -> dict:
    """The report of a dry run as plain data (what ``--report`` writes as JSON), from its summed counters."""
    return {"streams": [_stream_report(index, stream, totals) for index, stream in enumerate(config.streams)]}


def _stream_report(index: int, stream: StreamConfig, totals: Counters) -> dict:
    def get(key: str) -> int:
        return int(totals.get(f"s{index}.{key}", 0))

    def removal(rule: str, expression: str) -> dict:
        return {
            "rule": rule,
            "expression": expression,
            "alone": {"documents": get(f"{rule}.alone.documents"), "text_bytes": get(f"{rule}.alone.text_bytes")},
            "marginal": {"documents": get(f"{rule}.marginal.documents"), "text_bytes": get(f"{rule}.marginal.text_bytes")},
        }

    rules = []
    filter_ = stream.filter
    if filter_ and filter_.include:
        rules += [removal(f"include_{i}", e) for i, e in enumerate(filter_.include)]
        rules.append(removal("include", "documents matching no include rule"))
    if filter_:
        rules += [removal(f"exclude_{i}", e) for i, e in enumerate(filter_.exclude)]
    spans = [
        {
            "rule": f"span_replacement[{i}]",
            "span": rule.span,
            "documents": get(f"span_{i}.documents"),
            "text_bytes_removed_alone": get(f"span_{i}.text_bytes_removed"),
        }
        for i, rule in enumerate(stream.span_replacement)
    ]
    kept_bytes = get("kept.text_bytes")
    in_bytes = get("in.text_bytes")
    return {
        "stream": stream.name,
        "in": {"documents": get("in.documents"), "text_bytes": in_bytes, "tokens_estimate": in_bytes // BYTES_PER_TOKEN},
        "filters": rules,
        "after_filters": {"documents": get("filtered.documents"), "text_bytes": get("filtered.text_bytes")},
        "span_replacement": spans,
        "span_text_bytes_removed": get("spans.text_bytes_removed"),
        "min_text_length": {"documents": get("min_text_length.documents"), "text_bytes": get("min_text_length.text_bytes")},
        "kept": {"documents": get("kept.documents"), "text_bytes": kept_bytes, "tokens_estimate": kept_bytes // BYTES_PER_TOKEN},
    }


UNLIMITED_WIDTH = 1 << 20
"""The width a table is measured at to find the width it needs without cutting or folding."""


def print_report(report: dict, console: Console | None = None) -> None:
    """One table per stream. Nothing the user reads is cut: when the rules' expressions do not fit
    beside the numbers (an 80-column terminal), the table names the rules and lists them in full below it."""
    from rich.measure import Measurement

    from dolma_sql.runtime.progress import new_console

    console = console or new_console()
    for stream in report["streams"]:
        rules = [(rule["rule"], rule["expression"]) for rule in stream["filters"]] + [(span["rule"], span["span"]) for span in stream["span_replacement"]]
        table = _report_table(stream, with_expressions=True)
        if Measurement.get(console, console.options.update_width(UNLIMITED_WIDTH), table).maximum <= console.width:
            console.print(table)
            continue
        console.print(_report_table(stream, with_expressions=False))
        for name, expression in rules:
            if expression:
                console.print(f"  {name}: {expression}", highlight=False, markup=False, soft_wrap=True)


def _report_table(stream: dict, *, with_expressions: bool) -> Table:
    from rich.table import Table
    from rich.text import Text

    total = max(stream["in"]["documents"], 1)
    table = Table(title=f"stream {stream['stream']}: {stream['in']['documents']:,} documents, ~{stream['in']['tokens_estimate']:,} tokens in")
    table.add_column("rule", no_wrap=True)
    if with_expressions:
        table.add_column("expression", no_wrap=True)
    for column in ("alone: docs", "alone: %", "beyond earlier rules: docs", "beyond earlier rules: bytes"):
        table.add_column(column, justify="right", overflow="fold")

    def add_row(rule: str, expression: str, *cells: str) -> None:
        table.add_row(rule, *([Text(expression)] if with_expressions else []), *cells)  # an expression is not markup

    for rule in stream["filters"]:
        alone, marginal = rule["alone"]["documents"], rule["marginal"]
        add_row(rule["rule"], rule["expression"], f"{alone:,}", f"{100 * alone / total:.1f}%", f"{marginal['documents']:,}", f"{marginal['text_bytes']:,}")
    for span in stream["span_replacement"]:
        change = -span["text_bytes_removed_alone"]
        add_row(span["rule"], span["span"], f"{span['documents']:,} changed", "", "", f"{change:+,} (alone)")
    short = stream["min_text_length"]
    add_row("min_text_length", "", "", "", f"{short['documents']:,}", f"{short['text_bytes']:,}")
    kept = stream["kept"]
    add_row("[bold]kept", "", f"[bold]{kept['documents']:,}", f"{100 * kept['documents'] / total:.1f}%", "", f"[bold]{kept['text_bytes']:,} (~{kept['tokens_estimate']:,} tokens)")
    return table


def write_report(report: dict, url: str) -> None:
    """Write the report as JSON to ``url`` (committed whole)."""
    storage.write_bytes(url, json.dumps(report, indent=2).encode())
