"""SQL exploration benchmark: ``dolma-sql sql``, ``dolma-sql stat`` vs upstream ``dolma stat``, ``mix --dry-run``.

    python bench/sql.py [--docs 1000000] [--files 16] [--processes 2] [--skip-upstream]

On a generated corpus (cached) with attributes made once by ``dolma-sql tag`` (cached, stamped):
``sqlbench_gopher`` (gopher_v1, 20 keys) and ``sqlbench_cheap`` (char_length_v1, random_number_v1),
it times, each as a separate process (wall seconds and peak RSS of the process tree):

(a) a histogram of one attribute with ``dolma-sql sql`` over the ``spans`` view, and a ``LIMIT``
    query over ``documents`` (streaming: it must not depend on the corpus size);
(b) ``dolma-sql stat`` on every attribute against upstream ``dolma stat`` on the same files, and
    checks that both reports have equal counts;
(c) ``dolma-sql mix --dry-run`` of a 20-rule recipe (``recipes/sql-dry-run.yaml``).

``--light`` uses only ``sqlbench_cheap`` (and ``recipes/sql-dry-run-cheap.yaml``), for machines
where tagging the corpus with gopher_v1 first would take too long.

Targets: (b) at least 5x upstream; (a) and (c) under 20 s on 2 cores.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
from pathlib import Path

from common import Row, corpus, corpus_info, dolma_sql_cmd, measure, oracle_dolma, print_table

RECIPES = Path(__file__).resolve().parent / "recipes"
ATTRIBUTE_SETS = {"sqlbench_gopher": ["gopher_v1"], "sqlbench_cheap": ["char_length_v1", "random_number_v1"]}
LIGHT_SETS = ("sqlbench_cheap",)
HISTOGRAM = (
    "SELECT floor(score * 10) / 10 AS bucket, count(*) AS documents FROM spans "
    "WHERE attribute = 'sqlbench_cheap__random_number_v1__random' GROUP BY bucket ORDER BY bucket"
)
SAMPLE = "SELECT id, source, length(text) AS characters FROM documents LIMIT 5"


def tagged(corpus_dir: Path, processes: int, names: tuple[str, ...]) -> dict[str, float]:
    """The bench's attribute sets, made once with ``dolma-sql tag`` (stamped); seconds each took when made."""
    seconds = {}
    for name in names:
        taggers = ATTRIBUTE_SETS[name]
        stamp = corpus_dir / ".stamps" / f"{name}.json"
        if not stamp.exists():
            print(f"[bench] dolma-sql tag {' '.join(taggers)} -> attributes/{name} (paid once) ...", file=sys.stderr)
            cmd = [*dolma_sql_cmd(), "tag", "--documents", str(corpus_dir / "documents" / "*.jsonl.gz"),
                   "--taggers", *taggers, "--experiment", name, "--processes", str(processes)]
            result = measure(cmd, cwd=corpus_dir)
            if result.returncode != 0:
                raise SystemExit(f"tagging {name} failed:\n{result.stderr[-4000:]}")
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(json.dumps({"cmd": cmd, "seconds": result.seconds}))
        seconds[name] = json.loads(stamp.read_text())["seconds"]
    return seconds


def read_report(directory: Path) -> dict[str, dict]:
    with gzip.open(directory / "summaries.jsonl.gz", "rt") as handle:
        return {summary["name"]: summary for summary in map(json.loads, handle)}


def same_counts(ours: dict[str, dict], upstream: dict[str, dict]) -> str:
    if ours.keys() != upstream.keys():
        return f"DIFFERENT attributes: {sorted(ours.keys() ^ upstream.keys())[:5]}"
    different = [name for name in ours if (ours[name]["counts"], ours[name]["bins"], ours[name]["total"]) != (upstream[name]["counts"], upstream[name]["bins"], upstream[name]["total"])]
    return f"counts equal for all {len(ours)} summaries" if not different else f"DIFFERENT counts: {different[:5]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1_000_000)
    # 16 files, as gencorpus.py documents for 1M docs: with 100 files (seed 0) two of its file
    # generators never finished (still walking after 40 CPU-minutes), so 100 is no safe default
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--skip-upstream", action="store_true", help="time dolma-sql only")
    parser.add_argument("--light", action="store_true", help="only the cheap attribute set (no gopher_v1 tagging) and its 20-rule recipe")
    args = parser.parse_args()
    names = LIGHT_SETS if args.light else tuple(ATTRIBUTE_SETS)
    recipe = RECIPES / ("sql-dry-run-cheap.yaml" if args.light else "sql-dry-run.yaml")

    corpus_dir = corpus(args.docs, args.files, args.seed)
    info = corpus_info(corpus_dir)
    tag_seconds = tagged(corpus_dir, args.processes, names)
    documents = str(corpus_dir / "documents" / "*.jsonl.gz")
    attribute_glob = str(corpus_dir / "attributes" / ("sqlbench_cheap" if args.light else "sqlbench_*") / "*.jsonl.gz")
    sql = [*dolma_sql_cmd(), "sql", "--documents", documents, "--attributes", "sqlbench_cheap"]
    rows: list[Row] = []
    notes: list[str] = [f"attributes made by dolma-sql tag in {', '.join(f'{k} {v:.0f} s' for k, v in tag_seconds.items())}"]

    with tempfile.TemporaryDirectory(dir=corpus_dir.parent) as scratch:
        scratch_dir = Path(scratch)
        histogram = measure([*sql, "--processes", str(args.processes), HISTOGRAM])
        rows.append(Row.of("(a) dolma-sql sql: histogram of one attribute", histogram, info))
        print(histogram.stdout, file=sys.stderr)
        sample = measure([*sql, SAMPLE])
        rows.append(Row.of("(a) dolma-sql sql: documents LIMIT 5", sample, info))

        ours = measure([*dolma_sql_cmd(), "stat", "--attributes", attribute_glob, "--report", str(scratch_dir / "ours"),
                        "--processes", str(args.processes)])
        rows.append(Row.of("(b) dolma-sql stat, all attributes", ours, info))
        if not args.skip_upstream:
            upstream = measure([str(oracle_dolma()), "stat", "--attributes", attribute_glob, "--report", str(scratch_dir / "upstream"),
                                "--processes", str(args.processes)])
            rows.append(Row.of("upstream dolma stat, all attributes", upstream, info))
            if upstream.returncode == 0 and ours.returncode == 0:
                notes.append("stat: " + same_counts(read_report(scratch_dir / "ours"), read_report(scratch_dir / "upstream")))

        env = {"DOLMA_BENCH_CORPUS": str(corpus_dir), "DOLMA_BENCH_OUTPUT": str(scratch_dir / "mixed")}
        dry_run = measure([*dolma_sql_cmd(), "mix", str(recipe), "--dry-run", "--processes", str(args.processes)], env=env)
        rows.append(Row.of("(c) dolma-sql mix --dry-run, 20 rules", dry_run, info))
        if dry_run.returncode == 0:
            print(dry_run.stdout[-3000:], file=sys.stderr)

    print_table(rows, title=f"sql/stat: {info.docs:,} docs, {info.bytes_uncompressed / 1e6:,.0f} MB JSONL in {len(info.files)} files, "
                f"{args.processes} processes (targets: (b) >= 5x upstream, (a) and (c) < 20 s)")
    for note in notes:
        print(note)
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
