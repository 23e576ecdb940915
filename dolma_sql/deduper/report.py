"""A dedupe run's statistics: counted per attribute file, summed into the run's report (a rich table, and JSON)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from dolma_sql import storage


@dataclass
class Stats:
    documents: int = 0
    units: int = 0
    keys: int = 0
    duplicate_keys: int = 0
    marked_spans: int = 0
    marked_documents: int = 0
    marked_bytes: int = 0
    skipped_files: int = 0
    files: int = 0

    def add(self, other: Stats) -> None:
        for name, value in dataclasses.asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def counters(self) -> dict[str, float]:
        return dataclasses.asdict(self)


@dataclass
class Report:
    mode: str
    stats: Stats = field(default_factory=Stats)
    seconds: float = 0.0
    filter_bits: int = 0
    filter_hashes: int = 0
    fill_ratio: float | None = None
    estimated_false_positive_rate: float | None = None
    lineage: str | None = None
    minhash: dict | None = None
    """Minhash mode's figures: clusters, their sizes, documents removed, seconds per stage."""

    def as_dict(self) -> dict:
        figures = {"minhash": self.minhash} if self.minhash is not None else {}
        return {
            "mode": self.mode,
            "seconds": round(self.seconds, 3),
            **self.stats.counters(),
            "filter_bits": self.filter_bits,
            "filter_hashes": self.filter_hashes,
            "fill_ratio": self.fill_ratio,
            "estimated_false_positive_rate": self.estimated_false_positive_rate,
            "lineage": self.lineage,
            **figures,
        }


def write_report(report: Report, url: str, *, staging: str | None = None, rename: bool = True) -> None:
    storage.write_bytes(url, json.dumps(report.as_dict(), indent=1).encode() + b"\n", staging=staging, rename=rename)


def print_report(report: Report) -> None:
    from rich.table import Table

    from dolma_sql.runtime.progress import console

    table = Table(title=f"dedupe ({report.mode})", show_header=False)
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")  # the lineage table's path: folded, never cut
    stats = report.stats
    rows = [
        ("files processed / skipped", f"{stats.files:,} / {stats.skipped_files:,}"),
        ("documents", f"{stats.documents:,}"),
        ("paragraphs or keyed documents", f"{stats.units:,}"),
        ("keys checked", f"{stats.keys:,}"),
        ("duplicate keys", f"{stats.duplicate_keys:,}"),
        ("spans marked", f"{stats.marked_spans:,}"),
        ("documents with a mark", f"{stats.marked_documents:,}"),
        ("bytes marked", f"{stats.marked_bytes:,}"),
    ]
    if report.fill_ratio is not None:
        rows += [
            ("filter size", f"{report.filter_bits / 8 / 2**20:,.1f} MiB, {report.filter_hashes} hash functions"),
            ("filter fill ratio", f"{report.fill_ratio:.4f}"),
            ("estimated false-positive rate", f"{report.estimated_false_positive_rate:.3g}"),
        ]
    if report.minhash is not None:
        figures = report.minhash
        sizes = ", ".join(f"{size}: {count:,}" for size, count in list(figures["cluster_sizes"].items())[:8])
        rows += [
            ("candidate edges / kept", f"{figures['candidate_edges']:,} / {figures['edges']:,}"),
            ("clusters (documents)", f"{figures['clusters']:,} ({figures['clustered_documents']:,})"),
            ("cluster sizes", sizes or "-"),
            ("documents removed", f"{figures['removed_documents']:,} ({figures['fraction_removed']:.2%})"),
            ("seconds per stage", ", ".join(f"{name} {value:.2f}" for name, value in figures["stage_seconds"].items())),
        ]
    if report.lineage:
        rows.append(("lineage table", report.lineage))
    rows.append(("seconds", f"{report.seconds:.2f}"))
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)
