"""MinHash dedup benchmark: dolma-sql's ``dedupe`` minhash mode vs datatrove 0.10.1's four MinHash stages.

    python bench/minhash.py [--docs 200000 1000000] [--processes 2] [--skip-datatrove] [--only dolma-sql|datatrove]
    python bench/minhash.py quality [--bases 3000] [--out docs/minhash-quality.png]

For each corpus size (the cached gencorpus corpus; 10,000 documents a file, so the 1M corpus has 100
files) it runs datatrove's signatures, buckets, cluster and filter stages, each on its local
executor with ``--processes`` workers, then ``dolma-sql dedupe --dedupe.minhash.attribute_name``
with the same shingles (5 words), bands (14 x 8) and seed, and prints for every stage and end to end:
wall and CPU seconds (user + sys of the process tree), documents/s, peak RSS of the whole tree and of
each process, and the ratios; the floor is floors.py's ``dedupe-paragraphs`` (every text read, parsed
and hashed). dolma-sql's stages are one command: its per-stage seconds come
from its report. datatrove's rows are saved under ``bench/.cache/minhash-*/results.json`` and reused by
``--skip-datatrove`` (noted "cached"). Both systems' duplicate counts are printed side by side.

``quality`` plots recall (pairs in one cluster) against exact Jaccard similarity and the precision of
removals on the planted-duplicates corpus of tests/minhash_corpus.py, for dolma-sql (and datatrove
when its venv exists), with the LSH curve 1 - (1 - s^8)^14 for reference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

from floors import floor_row

from common import CACHE, REPO, Row, corpus, corpus_info, dolma_sql_cmd, measure, print_table, save_result, saved_results

sys.path.insert(0, str(REPO / "tests"))
from minhash_corpus import (  # noqa: E402  (tests/ holds the one corpus generator and datatrove runner)
    DATATROVE_SCRIPT,
    datatrove_command,
    datatrove_result,
    dolma_sql_result,
    find_datatrove,
    generate,
    run_dolma_sql,
)

DATATROVE_STAGES = ("signatures", "buckets", "cluster", "filter")
DOCS_PER_FILE = 10_000
FLOOR = "floor read+hash"
"""floors.py's dedupe-paragraphs: every text gunzipped, parsed, split and hashed by DuckDB, nothing written."""


def datatrove_rows(python: Path, documents: Path, work: Path, info, processes: int) -> list[Row]:
    shutil.rmtree(work, ignore_errors=True)
    rows = []
    for stage in DATATROVE_STAGES:
        result = measure(datatrove_command(python, stage, documents, work, workers=processes), cwd=work.parent)
        row = Row.of(f"datatrove {stage}", result, info)
        rows.append(row)
        print(f"[bench] datatrove {stage}: {result.seconds:.1f} s, CPU {result.cpu_seconds:.1f} s", flush=True)
        if not row.ok:
            print(result.stderr[-3000:], file=sys.stderr)
            break
    removed = sum(1 for path in (work / "removed").glob("*.jsonl.gz") for _ in _gzip_lines(path))
    largest = max(rows, key=lambda r: r.largest_process_mb or 0)
    total = Row("datatrove (4 stages)", sum(r.seconds for r in rows), info.docs, info.bytes_uncompressed,
                max(r.peak_rss_mb for r in rows), all(r.ok for r in rows), f"{removed:,} documents removed",
                sum(r.cpu_seconds or 0 for r in rows), largest.driver_peak_mb, largest.worker_peaks_mb)
    return [*rows, total]


def _gzip_lines(path: Path):
    import gzip

    with gzip.open(path, "rb") as handle:
        yield from handle


def dolma_sql_rows(run_dir: Path, info, processes: int) -> tuple[list[Row], dict]:
    shutil.rmtree(run_dir / "attributes", ignore_errors=True)
    report_file = run_dir / "report.json"
    report_file.unlink(missing_ok=True)
    command = [*dolma_sql_cmd(), "dedupe", "--documents", str(run_dir / "documents" / "*.jsonl.gz"),
               "--dedupe.name", "minhash", "--dedupe.minhash.attribute_name", "minhash",
               "--processes", str(processes), "--report", str(report_file)]
    result = measure(command, cwd=run_dir)
    total = Row.of("dolma-sql minhash", result, info)
    if not total.ok:
        print(result.stderr[-3000:], file=sys.stderr)
        return [total], {}
    report = json.loads(report_file.read_text())
    minhash = report.get("minhash", {})
    total.note = (f"{minhash.get('removed_documents', 0):,} removed, {minhash.get('clusters', 0):,} clusters, "
                  f"{minhash.get('candidate_edges', 0):,} candidate edges")
    rows = [Row(f"dolma-sql {stage}", seconds, info.docs, info.bytes_uncompressed, float("nan"), True, "from its report")
            for stage, seconds in minhash.get("stage_seconds", {}).items()]
    return [*rows, total], report


def performance(args: argparse.Namespace) -> None:
    python = find_datatrove()
    for docs in args.docs:
        files = max(1, docs // DOCS_PER_FILE)
        info = corpus_info(corpus(docs, files))
        run_dir = CACHE / f"minhash-{docs}-{files}-p{args.processes}"
        run_dir.mkdir(parents=True, exist_ok=True)
        if not (run_dir / "documents").exists():
            (run_dir / "documents").symlink_to(info.path / "documents")
        results = run_dir / "results.json"
        valid_for = "datatrove==0.10.1 " + hashlib.sha256(DATATROVE_SCRIPT.read_bytes()).hexdigest()[:16]
        rows: list[Row] = []
        if args.only != "dolma-sql":
            cached = saved_results(results, valid_for) if args.skip_datatrove else {}
            if cached:
                rows += [cached[name] for name in (*(f"datatrove {stage}" for stage in DATATROVE_STAGES), "datatrove (4 stages)")
                         if name in cached]
            elif python is None:
                raise SystemExit('no datatrove venv: python -m venv .datatrove && .datatrove/bin/pip install "datatrove==0.10.1" orjson "xxhash<4" regex tokenizers')
            else:
                for row in datatrove_rows(python, run_dir / "documents", run_dir / "datatrove", info, args.processes):
                    save_result(results, row, valid_for)
                    rows.append(row)
        report = {}
        if args.only != "datatrove":
            rows.insert(0, floor_row(FLOOR, "dedupe-paragraphs", info, args.processes))
            ours, report = dolma_sql_rows(run_dir, info, args.processes)
            rows += ours
        load = os.getloadavg()
        print_table(rows, title=f"minhash dedupe: {info.docs:,} documents, {files} files, {args.processes} processes "
                                f"(load {load[0]:.1f} at the end)",
                    baselines={"× vs datatrove": "datatrove (4 stages)"} if any(r.system == "datatrove (4 stages)" for r in rows) else {},
                    floors={"÷ floor": FLOOR} if any(r.system == FLOOR for r in rows) else {})
        if report:
            (run_dir / f"report-{time.strftime('%Y%m%dT%H%M%S')}.json").write_text(json.dumps(report, indent=1))


def quality_plot(args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    root = CACHE / f"minhash-quality-{args.bases}"
    planted = generate(root / "corpus", bases=args.bases, files=4, seed=0)
    shutil.rmtree(planted.root / "attributes", ignore_errors=True)
    run_dolma_sql(planted)
    systems = {"dolma-sql": dolma_sql_result(planted)}
    python = find_datatrove()
    if python is not None:
        import subprocess

        work = root / "datatrove"
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(datatrove_command(python, "all", planted.root / "documents", work), check=True, capture_output=True)
        systems["datatrove 0.10.1"] = datatrove_result(planted, python, work)

    figure, (recall_axes, precision_axes) = plt.subplots(1, 2, figsize=(11, 4.2))
    s = np.linspace(0, 1, 200)
    recall_axes.plot(s, 1 - (1 - s**8) ** 14, color="grey", linestyle=":", label="LSH 14 x 8: 1-(1-s^8)^14")
    for name, result in systems.items():
        quality = result.quality(planted)
        centres, recall, counts = quality.recall_curve()
        recall_axes.plot(centres, recall, marker="o", label=f"{name} (recall >= 0.85: {quality.recall(0.85):.3f})")
        thresholds, precision = quality.precision_curve()
        precision_axes.plot(thresholds, precision, marker="o",
                            label=f"{name} ({len(result.removed):,} removed, {quality.removed_below(0.5):.1%} below 0.5)")
        print(f"{name}: recall(J>=0.85) {quality.recall(0.85):.3f} over {quality.pairs(0.85)} pairs; "
              f"removed {len(result.removed)}, {quality.removed_below(0.5):.3f} below J 0.5")
    if len(systems) == 2:
        ours, theirs = systems.values()
        print(f"removed by only one of the two: {len(ours.removed ^ theirs.removed)} of {len(planted.documents)} documents "
              f"(agreement {1 - len(ours.removed ^ theirs.removed) / len(planted.documents):.3f}; the kept one chosen alike)")
    recall_axes.set(xlabel="exact Jaccard similarity of the pair (5-word shingles)", ylabel="fraction of pairs in one cluster",
                    title=f"recall ({sum(counts)} pairs at J >= 0.3)", xlim=(0.25, 1.02), ylim=(-0.02, 1.02))
    precision_axes.set(xlabel="t", ylabel="removed with J >= t to the one kept",
                       title="precision of removals", xlim=(0, 1.02), ylim=(-0.02, 1.02))
    for axes in (recall_axes, precision_axes):
        axes.grid(alpha=0.3)
        axes.legend(fontsize=8, loc="lower right" if axes is recall_axes else "lower left")
    figure.suptitle(f"MinHash at the default parameters on {len(planted.documents):,} documents with planted near-duplicates "
                    "(tests/minhash_corpus.py)", fontsize=10)
    figure.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out, dpi=90)
    print(f"wrote {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", nargs="?", choices=["performance", "quality"], default="performance")
    parser.add_argument("--docs", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--skip-datatrove", action="store_true", help="reuse datatrove's saved rows")
    parser.add_argument("--only", choices=["dolma-sql", "datatrove"])
    parser.add_argument("--bases", type=int, default=3000, help="quality: base documents of the planted corpus")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "minhash-quality.png")
    args = parser.parse_args()
    quality_plot(args) if args.mode == "quality" else performance(args)


if __name__ == "__main__":
    main()
