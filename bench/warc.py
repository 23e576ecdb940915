"""WARC extraction benchmark: upstream ``dolma warc`` vs ``dolma-sql warc`` vs the floor, both linearizers.

    python bench/warc.py [--records 20000] [--files 8] [--processes 2] [--linearizers resiliparse trafilatura]
                         [--skip-upstream] [--skip-dolma-sql]

The input is generated once into ``bench/.cache/`` by ``tests/warc_corpus.py`` (the generator the
differential tests use): ``--records`` request/response pairs of realistic HTML pages in ``--files``
Common Crawl-style ``.warc.gz`` files (utf-8, windows-1252, iso-8859-1 and shift_jis, declared in the
HTTP header, a meta tag or nowhere), the first file also holding the special records (no digest, binary,
plain text, resource, a huge and a nested page). Each linearizer runs upstream, dolma-sql and the floor
with the same process count; dolma-sql's documents are compared with upstream's (all fields but the
clock's). The floor (``floors.py`` kind ``warc``) is fastwarc's iteration, each page decoded as upstream
decodes it and linearized, in a pool of the same size: no JSON, no taggers, no output.
Upstream's rows and output are kept; ``--skip-upstream`` reuses them (marked "cached").
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import multiprocessing
import shutil
import sys
from pathlib import Path

from common import CACHE, REPO, CorpusInfo, Row, dolma_sql_cmd, locked, measure, oracle_dolma, print_table, save_result, saved_results
from floors import floor_row

sys.path.insert(0, str(REPO / "tests"))
from warc_corpus import CLOCK_DATED, document_differences, warc_bytes, write_warc  # noqa: E402

LINEARIZERS = ("resiliparse", "trafilatura")
ADDED = "2024-05-01T12:00:00.000Z"
TARGETS = {"resiliparse": 1.5}  # dolma-sql at least this many times upstream's speed
FLOOR_TARGET = 1.25  # dolma-sql within this factor of the floor


# ------------------------------------------------------------------------------ the input
def _write_file(task: tuple[Path, int, int, bool]) -> dict:
    path, records, seed, specials = task
    corpus = write_warc(path, records=records, seed=seed, specials=specials, truncated=False, huge_size=40, nest_depth=300)
    return {"pages": corpus.html_responses, "bytes": sum(len(warc_bytes(r)) for r in corpus.records)}


def warc_corpus(records: int, files: int, seed: int, processes: int) -> CorpusInfo:
    """The generated WARC files for these parameters, made once and reused (a manifest marks them complete)."""
    target = CACHE / f"warc-{records}-{files}-{seed}"
    manifest = target / "manifest.json"
    with locked(CACHE / f"{target.name}.lock"):
        if not manifest.exists():
            shutil.rmtree(target, ignore_errors=True)
            (target / "warc").mkdir(parents=True)
            print(f"[bench] generating {records} pages in {files} WARC files ...", file=sys.stderr)
            tasks = [(target / "warc" / f"cc-{i:05d}.warc.gz", records // files + (i < records % files), seed + i, i == 0) for i in range(files)]
            with multiprocessing.get_context("spawn").Pool(processes) as pool:
                counts = pool.map(_write_file, tasks)
            manifest.write_text(json.dumps({"pages": sum(c["pages"] for c in counts), "bytes": sum(c["bytes"] for c in counts)}))
    counts = json.loads(manifest.read_text())
    return CorpusInfo(target, counts["pages"], counts["bytes"], sorted((target / "warc").glob("*.warc.gz")))


# ------------------------------------------------------------------------------ the runs
def config_file(folder: Path, info: CorpusInfo, destination: Path, linearizer: str, processes: int, ours: bool) -> Path:
    config = {"documents": [str(info.path / "warc" / "*.warc.gz")], "destination": [str(destination)], "source_name": "cc-bench",
              "linearizer": linearizer, "processes": processes, **({"added": ADDED} if ours else {})}
    path = folder / f"{destination.name}.json"
    path.write_text(json.dumps(config))
    return path


def compare(upstream_dir: Path, ours_dir: Path) -> str:
    """'' when every document is equal but for the clock's fields, else the first difference."""
    expected_files = sorted(upstream_dir.glob("*.jsonl.gz"))
    if [p.name for p in expected_files] != sorted(p.name for p in ours_dir.glob("*.jsonl.gz")):
        return "different output files"
    for expected_path in expected_files:
        with gzip.open(expected_path, "rt") as expected_lines, gzip.open(ours_dir / expected_path.name, "rt") as our_lines:
            for line, (want, got) in enumerate(itertools.zip_longest(expected_lines, our_lines), start=1):
                if want is None or got is None:
                    return f"{expected_path.name}: different document counts"
                want, got = json.loads(want), json.loads(got)
                ignore = {"added", "created"} if want["metadata"]["warc_url"] in CLOCK_DATED else {"added"}
                if found := document_differences(want, got, ignore):
                    return f"{expected_path.name}:{line} {found[0][:120]}"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--linearizers", nargs="+", default=list(LINEARIZERS), choices=LINEARIZERS)
    parser.add_argument("--skip-upstream", action="store_true", help="reuse upstream's last rows and output")
    parser.add_argument("--skip-dolma-sql", action="store_true", help="run (and cache) upstream only")
    args = parser.parse_args()

    info = warc_corpus(args.records, args.files, args.seed, args.processes)
    work = CACHE / f"{info.path.name}-p{args.processes}"
    work.mkdir(parents=True, exist_ok=True)
    results_file = work / "results.json"
    tables = []
    for linearizer in args.linearizers:
        rows: list[Row] = []
        up_dir, our_dir = work / f"upstream-{linearizer}", work / f"dolma-sql-{linearizer}"
        upstream = saved_results(results_file, linearizer).get(f"upstream {linearizer}") if args.skip_upstream else None
        if upstream is None or not up_dir.is_dir():
            shutil.rmtree(up_dir, ignore_errors=True)
            result = measure([str(oracle_dolma()), "-c", str(config_file(work, info, up_dir, linearizer, args.processes, False)), "warc"], cwd=work)
            upstream = Row.of(f"upstream {linearizer}", result, info)
            save_result(results_file, upstream, linearizer)
        rows.append(upstream)
        if not args.skip_dolma_sql:
            shutil.rmtree(our_dir, ignore_errors=True)
            result = measure([*dolma_sql_cmd(), "-c", str(config_file(work, info, our_dir, linearizer, args.processes, True)), "warc"], cwd=work)
            note = ""
            if upstream.ok and result.returncode == 0:
                diff = compare(up_dir, our_dir)
                note = "documents equal" if not diff else f"DIFFERENT: {diff}"
            rows.append(Row.of(f"dolma-sql {linearizer}", result, info, note=note))
            rows.append(floor_row(f"floor {linearizer}", "warc", info, args.processes, linearizer=linearizer))
        tables.append((linearizer, rows))
    for linearizer, rows in tables:
        print_table(rows, title=f"dolma warc vs dolma-sql warc, {linearizer}, {info.docs:,} pages in {len(info.files)} files, "
                    f"{args.processes} processes", baselines={"× vs upstream": rows[0].system},
                    floors={"÷ floor": f"floor {linearizer}"} if len(rows) > 1 else None)
        summarize(linearizer, rows)


def summarize(linearizer: str, rows: list[Row]) -> None:
    """The targets: CPU seconds ratios (robust on a loaded machine), and wall ratios beside them."""
    by = {row.system.split(" ")[0]: row for row in rows if row.ok}
    ours, upstream, floor = by.get("dolma-sql"), by.get("upstream"), by.get("floor")
    if ours and upstream:
        target = TARGETS.get(linearizer)
        speedup = upstream.cpu_seconds / ours.cpu_seconds
        print(f"{linearizer}: dolma-sql {speedup:.2f}x upstream (CPU s), {upstream.seconds / ours.seconds:.2f}x (wall)"
              + (f"; target >= {target}x: {'met' if speedup >= target else 'MISSED'}" if target else ""))
    if ours and floor:
        over = ours.cpu_seconds / floor.cpu_seconds
        print(f"{linearizer}: dolma-sql {over:.2f}x the floor (CPU s), {ours.seconds / floor.seconds:.2f}x (wall); "
              f"target <= {FLOOR_TARGET}x: {'met' if over <= FLOOR_TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
