"""``dolma stat``: histograms of every attribute's span scores and lengths.

The counts equal upstream dolma 1.2.1's, which come from a two-level procedure that this module
follows step by step: each attribute file is summarised on its own (values counted into fixed
buckets: the ``frexp`` mantissa floored to 1/100000, and the exponent; when a file has more
distinct buckets than ``bins``, they are folded into ``bins`` equal-width bins whose left edges
stand in for them), and the per-file summaries are bucketed again, merged, and folded once more.

Each file is one unit of work (``processes`` run in parallel): parsed by Arrow's JSON reader,
with spans flattened into numpy arrays and bucketed with vectorized ``frexp``/``unique``; its
summary is written as dolma's per-file summary lines into the work dir, so a rerun with the same
``work_dir.output`` skips finished files.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tempfile
from dataclasses import dataclass

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json

from dolma_sql.errors import InputError
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.runtime import run_units
from dolma_sql.storage import output
from dolma_sql.formats.lines import iter_line_batches, read_decompressed

MANTISSA_STEPS = 100_000
"""Buckets per power of two (dolma's ``FixedBucketsValTracker(n=5)``)."""

class Summary(msgspec.Struct):
    """One line of dolma's ``summaries.jsonl.gz``: a histogram (``bins`` are edges, or bucket values plus an upper edge)."""

    name: str
    counts: list[int]
    bins: list[float]
    total: int
    sum: int | float


@dataclass
class Buckets:
    """Fixed buckets as parallel arrays: exponent, mantissa step, count."""

    exponent: np.ndarray
    mantissa: np.ndarray
    count: np.ndarray

    def values(self) -> np.ndarray:
        """The value each bucket stands for: ``mantissa / 100000 * 2**exponent`` (exactly as dolma computes it)."""
        return self.mantissa / MANTISSA_STEPS * np.ldexp(1.0, self.exponent)


def bucket_values(values: np.ndarray, counts: np.ndarray | None = None) -> Buckets:
    """Count values (each weighing ``counts``, default 1) into fixed buckets, like ``math.frexp`` in dolma."""
    mantissa, exponent = np.frexp(np.asarray(values, dtype=np.float64))
    steps = np.floor(mantissa * MANTISSA_STEPS).astype(np.int64)
    key = (exponent.astype(np.int64) + 4096) * (4 * MANTISSA_STEPS) + (steps + 2 * MANTISSA_STEPS)
    weights = np.ones(len(key), dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
    unique, inverse = np.unique(key, return_inverse=True)
    count = np.bincount(inverse.ravel(), weights=weights, minlength=len(unique)).astype(np.int64)
    return Buckets(unique // (4 * MANTISSA_STEPS) - 4096, unique % (4 * MANTISSA_STEPS) - 2 * MANTISSA_STEPS, count)


def merge(buckets: list[Buckets]) -> Buckets:
    """Sum the counts of equal buckets; buckets with a zero count are kept (dolma keeps them too)."""
    exponent = np.concatenate([b.exponent for b in buckets])
    mantissa = np.concatenate([b.mantissa for b in buckets])
    count = np.concatenate([b.count for b in buckets])
    key = (exponent + 4096) * (4 * MANTISSA_STEPS) + (mantissa + 2 * MANTISSA_STEPS)
    unique, inverse = np.unique(key, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=count, minlength=len(unique)).astype(np.int64)
    return Buckets(unique // (4 * MANTISSA_STEPS) - 4096, unique % (4 * MANTISSA_STEPS) - 2 * MANTISSA_STEPS, summed)


def fold(buckets: Buckets, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, edges)``: the buckets as they are when there are at most ``bins`` (edges are the bucket
    values plus the last bucket's upper bound), else ``bins`` equal-width bins over the bucket values."""
    values = buckets.values()
    order = np.argsort(values, kind="stable")
    values, counts = values[order], buckets.count[order]
    if len(values) <= bins:
        return counts, np.append(values, upper_edge(values[-1]))
    counts, edges = np.histogram(values, bins=bins, weights=counts)
    return counts.astype(np.int64), edges


def upper_edge(value: float) -> float:
    """The upper bound of ``value``'s bucket."""
    mantissa, exponent = np.frexp(value)
    return float((np.floor(mantissa * MANTISSA_STEPS) + 1) / MANTISSA_STEPS * np.ldexp(1.0, exponent))


def summary_of(name: str, buckets: Buckets, bins: int, total: int, value_sum: float) -> Summary:
    counts, edges = fold(buckets, bins)
    is_length = name.endswith("/length")
    return Summary(name, counts.tolist(), edges.tolist(), int(total), int(value_sum) if is_length else float(value_sum))


# ------------------------------------------------------------------------------ one file
@dataclass(frozen=True)
class StatUnit:
    """Summarise one attribute file into ``partial`` (dolma's per-file summary lines)."""

    path: str
    partial: str
    bins: int
    regex: str | None


def summarize_file(unit: StatUnit) -> dict[str, float]:
    """The unit's per-file summaries: every attribute's score and length values, bucketed and folded."""
    data, table, lines = _read_attributes(unit.path)
    name_filter = re.compile(unit.regex) if unit.regex else None
    encoder = msgspec.json.Encoder()
    with output(unit.partial) as writer:
        if "attributes" in table.column_names:
            column = table.column("attributes").combine_chunks()
            if not pa.types.is_struct(column.type):
                raise _locate_bad_line(unit.path) or InputError("`attributes` is not an object", path=unit.path)
            for index in _first_seen_order(column, data):
                name = column.type.field(index).name
                if name_filter and not name_filter.search(name):
                    continue
                scores, lengths = _span_values(column.field(index), name, unit.path)
                if "__label__" in name:  # fastText can report probabilities a hair above 1 (dolma caps them)
                    scores = np.minimum(scores, 1.0)
                for measure, values in (("score", scores), ("length", lengths)):
                    if len(values):
                        summary = summary_of(f"{name}/{measure}", bucket_values(values), unit.bins, len(values), values.sum())
                        writer.write(encoder.encode(summary) + b"\n")
    return {"documents": lines, "files": 1}


def _first_seen_order(column: pa.StructArray, data: bytes) -> list[int]:
    """Field indices in the order dolma meets the keys: by first line holding them, then by place in that line."""
    first_rows = [pc.index(pc.is_valid(column.field(index)), True).as_py() for index in range(column.type.num_fields)]
    present = [index for index, row in enumerate(first_rows) if row >= 0]
    tied_rows = {first_rows[index] for index in present if sum(first_rows[other] == first_rows[index] for other in present) > 1}
    places: dict[str, int] = {}
    if tied_rows:
        decode = msgspec.json.Decoder(dict).decode
        lines = data.split(b"\n", max(tied_rows) + 1)
        for row in tied_rows:
            places.update({key: place for place, key in enumerate(decode(lines[row]).get("attributes", {}))})
    return sorted(present, key=lambda index: (first_rows[index], places.get(column.type.field(index).name, 0)))


def _read_attributes(path: str) -> tuple[bytes, pa.Table, int]:
    """The file's decompressed bytes (kept to look lines up), its lines as a table, and its line count."""
    data = read_decompressed(path)
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    if not data.strip():
        return data, pa.table({}), lines
    try:
        table = pyarrow.json.read_json(io.BytesIO(data), read_options=pyarrow.json.ReadOptions(use_threads=False, block_size=1 << 24))
    except pa.ArrowInvalid:
        raise _locate_bad_line(path) or InputError("not JSON lines", path=path) from None
    return data, table, lines


def _span_values(spans: pa.Array, name: str, path: str) -> tuple[np.ndarray, np.ndarray]:
    """Scores and lengths of every span of one attribute; a present but empty list counts as one (0, 0, 0.0) span."""
    if pa.types.is_null(spans.type):
        return np.empty(0), np.empty(0)
    if not (pa.types.is_list(spans.type) and (pa.types.is_null(spans.type.value_type) or pa.types.is_list(spans.type.value_type))):
        raise _locate_bad_line(path) or InputError(f"attribute {name!r} is not a list of spans", path=path)
    empty = int(pc.sum(pc.equal(pc.list_value_length(spans), 0)).as_py() or 0)
    if pa.types.is_list(spans.type.value_type):
        triples = spans.flatten()
        if triples.null_count or not pc.all(pc.equal(pc.list_value_length(triples), 3)).as_py():
            raise _locate_bad_line(path) or InputError(f"attribute {name!r} has a span that is not [start, end, score]", path=path)
        flat = triples.flatten()
        if flat.null_count or not (pa.types.is_integer(flat.type) or pa.types.is_floating(flat.type)):
            raise _locate_bad_line(path) or InputError(f"attribute {name!r} has a span with a non-number", path=path)
        values = flat.to_numpy(zero_copy_only=False).astype(np.float64).reshape(-1, 3)
    else:
        values = np.empty((0, 3))
    zeros = np.zeros(empty)
    return np.concatenate([values[:, 2], zeros]), np.concatenate([values[:, 1] - values[:, 0], zeros])


def _locate_bad_line(path: str) -> InputError | None:
    """The first line that is not ``{"attributes": {name: [[start, end, score], ...]}}`` (only on the error path)."""

    class Line(msgspec.Struct):
        attributes: dict[str, list[tuple[int, int, float]]]

    decode = msgspec.json.Decoder(Line).decode
    for batch in iter_line_batches(path):
        for offset, line in enumerate(batch.lines.to_pylist()):
            try:
                decode(line)
            except msgspec.DecodeError as error:
                return InputError(
                    f"not an attribute line of span lists: {error}",
                    path=path,
                    line=batch.first_line + offset,
                    hint="stat reads attribute files whose values are lists of (start, end, score) spans; "
                    "leave out attribute sets with other values (narrow the --attributes globs)",
                )
    return None


# ------------------------------------------------------------------------------ all files
def summarize(files: list[str], *, bins: int = 1000, regex: str | None = None, processes: int = 1, work_dir: str | None = None) -> list[Summary]:
    """dolma's ``<attribute>/score`` and ``<attribute>/length`` summaries of the attribute files, in first-seen order."""
    with tempfile.TemporaryDirectory() as scratch:
        directory = work_dir or scratch
        units = [StatUnit(path, _partial_path(directory, path, bins, regex), bins, regex) for path in files]
        todo = [unit for unit in units if not os.path.exists(unit.partial)]
        run_units(summarize_file, todo, executor=LocalExecutor(processes, caller_works=True), label="stat")
        return _aggregate([unit.partial for unit in units], bins)


def _partial_path(directory: str, path: str, bins: int, regex: str | None) -> str:
    """A per-file summary name that changes when the file or the options change (so reruns skip only valid work)."""
    stat = os.stat(path)
    key = f"{os.path.abspath(path)}\0{stat.st_size}\0{stat.st_mtime_ns}\0{bins}\0{regex}"
    return os.path.join(directory, hashlib.sha1(key.encode()).hexdigest()[:20] + ".jsonl")


def _aggregate(partials: list[str], bins: int) -> list[Summary]:
    """Merge per-file summaries: their bins are bucketed again with their counts, totals and sums added."""
    decode = msgspec.json.Decoder(Summary).decode
    merged: dict[str, Buckets] = {}  # merged as files come, so memory is bounded by the buckets, not the files
    totals: dict[str, int] = {}
    sums: dict[str, float] = {}
    for partial in partials:
        with open(partial, "rb") as handle:
            for line in handle:
                summary = decode(line)
                buckets = bucket_values(summary.bins[: len(summary.counts)], summary.counts)
                merged[summary.name] = merge([merged[summary.name], buckets]) if summary.name in merged else buckets
                totals[summary.name] = totals.get(summary.name, 0) + summary.total
                sums[summary.name] = sums.get(summary.name, 0) + summary.sum
    return [summary_of(name, merged[name], bins, totals[name], sums[name]) for name in merged]


# ------------------------------------------------------------------------------ output
def write_report(summaries: list[Summary], report: str) -> str:
    """``<report>/summaries.jsonl.gz``, written atomically."""
    path = os.path.join(report, "summaries.jsonl.gz")
    encoder = msgspec.json.Encoder()
    with output(path) as writer:
        for summary in summaries:
            writer.write(encoder.encode(summary) + b"\n")
    return path


def display_rows(summary: Summary, rows: int = 10) -> list[tuple[str, float, int]]:
    """About ``rows`` ranges of roughly equal counts, as ``([lo, hi), share, count)``, for reading on a terminal."""
    counts = np.asarray(summary.counts, dtype=np.int64)
    edges = np.asarray(summary.bins, dtype=np.float64)
    grand = int(counts.sum())
    if grand == 0:
        return []
    cumulative = np.cumsum(counts)
    targets = np.arange(1, rows) * grand / rows
    cuts = np.unique(np.concatenate([np.searchsorted(cumulative, targets, side="left") + 1, [len(counts)]]))
    result, start = [], 0
    for cut in cuts:
        if cut <= start:
            continue
        count = int(counts[start:cut].sum())
        closing = "]" if cut == len(counts) else ")"
        result.append((f"[{_short(edges[start])}, {_short(edges[cut])}{closing}", count / grand, count))
        start = cut
    return result


def _short(value: float) -> str:
    return f"{value:.6g}"


def print_tables(summaries: list[Summary], console, show_total: bool = False) -> None:
    from rich.table import Table

    for summary in summaries:
        table = Table(title=summary.name, header_style="bold")
        table.add_column("value", style="cyan")
        table.add_column("dist", justify="right", style="magenta")
        table.add_column("count", justify="right", style="green")
        for label, share, count in display_rows(summary):
            table.add_row(label, f"{share:.4f}", f"{count:,}")
        if show_total:
            total_sum = f"{summary.sum:,}" if isinstance(summary.sum, int) else f"{summary.sum:.6g}"
            table.add_row(total_sum, "← sum/total →", f"{summary.total:,}")
        console.print(table)


PLOT_BINS = 50
"""Bars per plot: a summary's own bins can be tiny fixed buckets, unreadable when drawn to scale."""

PLOT_DISTINCT = 100
"""Up to this many distinct values are drawn as one bar each (equal-width bins would alias integers)."""


def plot(summaries: list[Summary], directory: str) -> list[str]:
    """One PNG per attribute (score and length side by side); returns the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    os.makedirs(directory, exist_ok=True)
    by_attribute: dict[str, dict[str, Summary]] = {}
    for summary in summaries:
        attribute, measure = summary.name.rsplit("/", 1)
        by_attribute.setdefault(attribute, {})[measure] = summary
    written = []
    for attribute, measures in by_attribute.items():
        figure, axes = pyplot.subplots(1, len(measures), figsize=(6 * len(measures), 4), squeeze=False)
        for axis, (measure, summary) in zip(axes[0], measures.items()):
            values = np.asarray(summary.bins[: len(summary.counts)])
            if len(values) <= PLOT_DISTINCT:
                gaps = np.diff(values)
                axis.bar(values, summary.counts, width=0.8 * (gaps.min() if len(gaps) else 1.0))
            else:
                counts, edges = np.histogram(values, bins=PLOT_BINS, weights=summary.counts)
                axis.stairs(counts, edges, fill=True)
            axis.set_title(f"{measure} ({summary.total:,} spans)")
            axis.set_xlabel(measure)
            axis.set_ylabel("spans")
        figure.suptitle(attribute)
        figure.tight_layout()
        path = os.path.join(directory, re.sub(r"[^A-Za-z0-9_.-]+", "_", attribute) + ".png")
        with output(path, codec="") as writer:
            figure.savefig(writer, format="png")
        pyplot.close(figure)
        written.append(path)
    return written
