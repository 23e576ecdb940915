"""Memory per worker: what a worker of each command holds at rest, and what the work adds.

    python bench/memory.py [--commands mix tag dedupe] [--processes 2] [--skip-runs]

For each command it prints two things:

1. **At rest**: a fresh interpreter importing, one step at a time, what a pool worker imports (the
   executor's worker module with the ``dolma_sql`` package, then the module the command preloads, then
   each library its units import when they run), with the resident memory after each step, so the
   cost of every import is a figure of its own.
2. **At work**: the command run for real on the bench corpus with ``--processes N``, with the peak RSS
   of every process (the driver, which runs units too unless an allocator is preloaded, and each
   worker, by its own high-water mark): the work adds the difference to the rest figure.

The target of issue 21 is at most 400 MB peak per worker on the bench corpora.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from common import CACHE, REPO, Row, corpus, corpus_info, dolma_sql_cmd, measure, print_table, upstream_attributes

TARGET_MB = 400
WORKER_BASE = "dolma_sql.runtime.local"
"""Every pool worker unpickles its initializer from here, which imports the ``dolma_sql`` package first."""

COMMANDS: dict[str, dict] = {
    "mix": {"preload": "dolma_sql.mixer.write", "lazy": ["duckdb", "polars", "pyarrow.json", "pyarrow.parquet", "isal.igzip", "msgspec"]},
    "tag": {"preload": "dolma_sql.tagger.unit",
            "lazy": ["dolma_sql.tagger.registry", "dolma_sql.udfs.gopher", "dolma_sql.udfs.c4", "dolma_sql.udfs.pii", "dolma_sql.udfs.language", "duckdb", "polars", "pyarrow.json", "pycld2", "anyascii", "blingfire", "uniseg.wordbreak"]},
    "dedupe": {"preload": "dolma_sql.deduper.extract", "lazy": ["duckdb", "polars", "pyarrow.json", "pyarrow.parquet", "pyarrow.feather"]},
}
LIBRARIES = ("numpy", "pyarrow", "pyarrow.json", "pyarrow.parquet", "duckdb", "polars", "sqlglot", "msgspec", "isal", "fsspec", "rich",
             "typer", "yaml", "pycld2", "tokenizers", "psutil", "ray")


# ------------------------------------------------------------------------------ the probe (a fresh interpreter)
def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _probe(modules: list[str]) -> None:
    """Import ``modules`` in order; print ``[step, RSS MB after it]`` per step and the heavy libraries loaded."""
    import importlib

    steps = [["python", _rss_mb()]]
    for module in modules:
        try:
            importlib.import_module(module)
            steps.append([module, _rss_mb()])
        except ImportError as error:
            steps.append([f"{module} (not importable: {error})", _rss_mb()])
    loaded = [name for name in LIBRARIES if name in sys.modules]
    print(json.dumps({"steps": steps, "loaded": loaded}))


def at_rest(command: str) -> dict:
    """The probe's steps for ``command``: worker base, preload (with the libraries loaded so far), lazy imports."""
    spec = COMMANDS[command]
    modules = [WORKER_BASE, spec["preload"], *spec["lazy"]]
    proc = subprocess.run([sys.executable, __file__, "probe", *modules], capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise SystemExit(f"memory probe of {command} failed:\n{proc.stderr[-3000:]}")
    first_steps = subprocess.run([sys.executable, __file__, "probe", WORKER_BASE, spec["preload"]], capture_output=True, text=True, cwd=REPO)
    result = json.loads(proc.stdout)
    result["loaded_by_preload"] = json.loads(first_steps.stdout)["loaded"] if first_steps.returncode == 0 else []
    return result


# ------------------------------------------------------------------------------ the real runs
def run_command(command: str, processes: int, docs: int, files: int) -> list[tuple[str, Row]]:
    """The command on the bench corpus (tag on all four taggers), measured per process."""
    info = corpus_info(corpus(docs, files))
    work = CACHE / f"memory-{command}-{docs}-p{processes}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    runs: list[tuple[str, list[str], dict]] = []
    if command == "mix":
        from mix import ATTRIBUTE_SETS, recipe

        upstream_attributes(info.path, ATTRIBUTE_SETS, processes=processes)
        env = {"DOLMA_BENCH_CORPUS": str(info.path), "DOLMA_BENCH_OUTPUT": str(work / "out")}
        runs.append(("mix, JSONPath recipe", [*dolma_sql_cmd(), "-c", str(recipe("jsonpath")), "mix"], env))
    elif command == "tag":
        from tag import CASES

        (work / "documents").symlink_to(info.path / "documents")
        runs.append(("tag, all four taggers", [*dolma_sql_cmd(), "tag", "--documents", str(work / "documents" / "*.jsonl.gz"),
                                               "--taggers", *CASES["e"], "--experiment", "memory"], {}))
    elif command == "dedupe":
        from dedupe import MODES, bloom_flags

        (work / "documents").symlink_to(info.path / "documents")
        for mode in ("paragraphs", "url"):
            base = [*dolma_sql_cmd(), "dedupe", *MODES[mode], "--documents", str(work / "documents" / "*.jsonl.gz"), "--dedupe.name", f"m_{mode}"]
            runs.append((f"dedupe {mode}, Bloom", [*base, *bloom_flags(info.docs), "--bloom_filter.file", str(work / f"{mode}.bin")], {}))
            runs.append((f"dedupe {mode}, exact", [*base, "--exact", "--work_dir.output", str(work / "exact"), "--dedupe.name", f"m_{mode}_exact"], {}))
    rows = []
    for label, cmd, env in runs:
        print(f"[memory] {label}: {' '.join(cmd)}", file=sys.stderr)
        result = measure([*cmd, "--processes", str(processes)], cwd=work, env=env)
        if result.returncode != 0:
            print(f"[memory] {label} failed (rc={result.returncode}):\n{result.stderr[-3000:]}", file=sys.stderr)
        rows.append((label, Row.of(f"{label} ({info.docs:,} docs)", result, info)))
    shutil.rmtree(work, ignore_errors=True)
    return rows


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "probe":
        _probe(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commands", nargs="+", choices=list(COMMANDS), default=list(COMMANDS))
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--tag-docs", type=int, default=50_000, help="tag runs all four taggers: the issue's tag size")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--skip-runs", action="store_true", help="only the at-rest probes")
    args = parser.parse_args(argv)

    over = 0
    for command in args.commands:
        rest = at_rest(command)
        print(f"\n## {command}: a worker at rest (fresh interpreter, RSS after each import; Δ = that import's cost)")
        previous = 0.0
        for step, rss in rest["steps"]:
            print(f"  {rss:7.0f} MB  (Δ {rss - previous:+6.0f})  {step}")
            previous = rss
        resting = rest["steps"][-1][1]
        print(f"  libraries loaded once the preload is imported: {', '.join(rest['loaded_by_preload']) or 'none of the heavy ones'}")
        if args.skip_runs:
            continue
        rows = run_command(command, args.processes, args.tag_docs if command == "tag" else args.docs, args.files)
        for label, row in rows:
            largest = row.largest_process_mb or 0
            over += largest > TARGET_MB
            workers = row.worker_peaks_mb or ()
            adds = f"work adds {max(workers) - resting:+,.0f} MB to the largest worker" if workers else "no worker processes"
            print(f"  {label}: peak per process {row.processes_text()} MB (driver | workers); largest {largest:,.0f} MB "
                  f"({'over' if largest > TARGET_MB else 'within'} the {TARGET_MB} MB target); {adds}; "
                  f"tree {row.peak_rss_mb:,.0f} MB; {row.seconds:.1f} s, {row.cpu_seconds:.1f} CPU s{'' if row.ok else ' FAILED ' + row.note}")
        print_table([row for _, row in rows], title=f"{command}: per-process peak RSS, {args.processes} processes", baselines={})
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
