"""The end-of-run report of ``warc``: records read by type, documents written, records skipped by reason, bytes and rate."""

from __future__ import annotations

from dolma_sql.runtime import Counters
from dolma_sql.runtime.run import SKIPPED

RECORD_TYPES = ("response", "resource", "warcinfo")


def report_lines(counters: Counters, seconds: float) -> list[str]:
    """Human-readable lines; pages are the response and resource records read by this run."""
    records = {kind: int(counters.get(f"records_{kind}", 0)) for kind in RECORD_TYPES}
    pages = records["response"] + records["resource"]
    lines = [
        f"{int(counters.get('files', 0)):,} WARC files: {', '.join(f'{n:,} {kind}' for kind, n in records.items())} records",
        f"{int(counters.get('documents', 0)):,} documents written",
    ]
    skipped = {key.removeprefix("skipped_"): int(value) for key, value in sorted(counters.items()) if key.startswith("skipped_") and value}
    if skipped:
        lines.append(f"{sum(skipped.values()):,} records skipped: " + ", ".join(f"{reason} {n:,}" for reason, n in skipped.items()))
    html, text = counters.get("html_bytes", 0), counters.get("text_bytes", 0)
    lines.append(f"{html / 1e6:,.1f} MB of payload in, {text / 1e6:,.1f} MB of text out")
    lines.append(f"{pages:,} pages in {seconds:,.1f} s ({pages / seconds if seconds else 0:,.0f} pages/s)")
    if counters.get(SKIPPED):
        lines.append(f"{int(counters[SKIPPED]):,} files already converted were kept (pass --ignore_existing to redo them)")
    return lines
