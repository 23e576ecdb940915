"""Dedupe benchmark: upstream dolma vs dolma-sql (Bloom and exact), paragraph mode and URL mode.

    python bench/dedupe.py [--docs 200000] [--files 20] [--processes 2] [--skip-upstream]

On the cached gencorpus corpus, for each mode it runs upstream ``dolma dedupe``, ``dolma-sql dedupe``
(Bloom filter, the same config) and ``dolma-sql dedupe --exact``, each from a fresh filter, then checks
that Bloom and exact marked the same documents and that the total number of duplicates equals
upstream's (upstream with several processes marks the same *number* of duplicates, but which copy
counts as "first" depends on thread scheduling), and prints seconds, CPU seconds, docs/s, MB/s of
uncompressed input, peak RSS (process tree, and each process) and the speed ratio against upstream, one table
per mode. Each table has two floors (``floors.py``): the same documents read and parsed, paragraphs split
and every key hashed, with nothing filtered or written, once with DuckDB's 64-bit hash (Bloom mode's) and
once with Polars' XXH3 under two seeds (exact mode's 128 bits); each dolma-sql row shows how many times each
floor it costs.

Paragraph mode uses the settings of bench/common.py's ``dedupe_paragraphs`` set (skip_empty, a filter
for 15 keys per document at a false-positive rate of 1e-7); URL mode keys on ``$.metadata.url``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path

from common import CACHE, Row, corpus, corpus_info, dolma_sql_cmd, measure, oracle_dolma, print_table
from floors import floor_row

MODES = {
    "paragraphs": ["--dedupe.paragraphs.attribute_name", "bff_duplicate_paragraph_spans", "--dedupe.skip_empty"],
    "url": ["--dedupe.documents.attribute_name", "bff_duplicate_url", "--dedupe.documents.key", "$.metadata.url"],
}


def marks(attributes: Path) -> list[int]:
    """Number of duplicate spans per document, in file then line order (offsets differ on non-ASCII text by design)."""
    counts = []
    for path in sorted(attributes.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                counts.append(sum(len(spans or []) for spans in json.loads(line)["attributes"].values()))
    return counts


def bloom_flags(docs: int) -> list[str]:
    """A fresh filter sized for ~15 keys a document at a false-positive rate of 1e-7 (both systems' settings)."""
    return ["--bloom_filter.estimated_doc_count", str(max(1000, docs * 15)),
            "--bloom_filter.desired_false_positive_rate", "1e-7", "--no-bloom_filter.read_only"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--skip-upstream", action="store_true")
    args = parser.parse_args()

    info = corpus_info(corpus(args.docs, args.files))
    run_dir = CACHE / f"dedupe-{args.docs}-{args.files}-p{args.processes}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    (run_dir / "documents").symlink_to(info.path / "documents")
    documents = str(run_dir / "documents" / "*.jsonl.gz")
    bloom = bloom_flags(info.docs)

    for mode, flags in MODES.items():
        systems = {
            f"dolma-sql bloom ({mode})": [*dolma_sql_cmd(), "dedupe", *flags, *bloom, "--bloom_filter.file", str(run_dir / f"{mode}.sql.bin")],
            f"dolma-sql exact ({mode})": [*dolma_sql_cmd(), "dedupe", *flags, "--exact", "--work_dir.output", str(run_dir / "work")],
        }
        if not args.skip_upstream:
            systems = {f"upstream ({mode})": [str(oracle_dolma()), "dedupe", *flags, *bloom, "--bloom_filter.file",
                                              str(run_dir / f"{mode}.upstream.bin")], **systems}
        floors = {f"floor hash ({mode})": "hash", f"floor xxh3 ({mode})": "xxh3"}
        rows: list[Row] = [floor_row(name, f"dedupe-{mode}", info, args.processes, hash=kind) for name, kind in floors.items()]
        reference = upstream_total = None
        for system, command in systems.items():
            name = system.replace(" ", "_").replace("(", "").replace(")", "")
            command = [*command, "--documents", documents, "--dedupe.name", name, "--processes", str(args.processes)]
            result = measure(command, cwd=run_dir)
            row = Row.of(system, result, info)
            if result.returncode == 0:
                counts = marks(run_dir / "attributes" / name)
                row.note = f"{sum(counts):,} duplicate spans"
                if system.startswith("upstream"):
                    upstream_total = sum(counts)
                else:
                    reference = reference if reference is not None else counts
                    same_total = upstream_total is None or sum(counts) == upstream_total
                    row.note += (", same documents as bloom" if counts == reference else " [red]DIFFERS from bloom[/red]")
                    row.note += "" if same_total else " [red]total DIFFERS from upstream[/red]"
            rows.append(row)
            print(f"[bench] {system}: {result.seconds:.2f} s", flush=True)
        print_table(rows, title=f"dedupe {mode}: {info.docs:,} documents, {args.files} files, {args.processes} processes "
                          "(targets: Bloom ≥ 1.5× upstream, exact ≥ 1.2×, each ≤ 1.5× its floor)",
                    baselines={} if args.skip_upstream else {"× vs upstream": f"upstream ({mode})"},
                    floors={f"÷ {name.split(' (')[0]}": name for name in floors})


if __name__ == "__main__":
    main()
