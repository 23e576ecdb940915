"""Mixer benchmark: a realistic CC-style recipe, upstream dolma vs dolma-sql, both filter syntaxes.

    python bench/mix.py [--docs 200000] [--files 20] [--processes 2] [--skip-upstream] [--repeat N]

On a generated corpus (cached) with upstream-made gopher, PII and paragraph-dedupe attributes
(cached), it runs in one go:

1. the floor: decompress + JSON parse + re-serialize + gzip of the same documents (and, as a second
   floor, the same plus decompressing and parsing the attribute files the mixer reads too),
2. upstream ``dolma -c recipes/mix-jsonpath.yaml mix`` and 3. the jq twin,
4. ``dolma-sql -c recipes/mix-jsonpath.yaml mix`` and 5. the jq twin,

(with ``--repeat N``, the floors and dolma-sql run N times, interleaved, and each shows its median
run: this machine's speed drifts by 10-20% within minutes, and the median of interleaved runs is the
steady figure), then checks that every pair produced the same documents (multiset by id, ``metadata.provenance``
ignored) and prints seconds, docs/s, MB/s of uncompressed input, peak RSS (process tree and each process), the
speed ratios to upstream and how many times each floor both dolma-sql mixers cost (wall / CPU).
The recipes read the corpus and output paths from ``$DOLMA_BENCH_CORPUS`` / ``$DOLMA_BENCH_OUTPUT``,
so they also run by hand.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import pickle
import shutil
import sys
from collections import Counter
from pathlib import Path

from common import (CACHE, Row, attempt_ratios, corpus, corpus_info, dolma_sql_cmd, measure, median_run, oracle_dolma, print_table, save_result,
                    saved_results, upstream_attributes)
from floors import floor_row

RECIPES = Path(__file__).resolve().parent / "recipes"
SYNTAXES = ("jsonpath", "jq")
ATTRIBUTE_SETS = ("gopher", "pii", "c4", "dedupe_paragraphs")


def recipe(syntax: str) -> Path:
    return RECIPES / f"mix-{syntax}.yaml"


def recipes_digest() -> str:
    """Cached upstream timings are only valid for the recipes they were measured with."""
    return hashlib.sha1(b"".join(recipe(s).read_bytes() for s in SYNTAXES)).hexdigest()[:12]


# ------------------------------------------------------------------------------ output comparison
def output_files(out_dir: Path) -> list[Path]:
    return sorted(p for p in out_dir.rglob("*") if p.is_file() and p.name.endswith((".json.gz", ".jsonl.gz")))


def iter_docs(out_dir: Path):
    for path in output_files(out_dir):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                doc = json.loads(line)
                if isinstance(doc.get("metadata"), dict):
                    doc["metadata"].pop("provenance", None)
                yield doc


def canonical(doc: dict) -> str:
    return json.dumps(doc, sort_keys=True, ensure_ascii=False)


def digests_by_id(out_dir: Path) -> dict[str, Counter]:
    """id -> multiset of document digests (digests, not documents, so memory stays small).

    Cached beside the output, keyed by the output files' names, sizes and mtimes, so each output
    is parsed once even when it takes part in several comparisons or bench runs.
    """
    signature = [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in output_files(out_dir)]
    cache = out_dir.with_name(out_dir.name + ".digests.pickle")
    if cache.exists():
        saved_signature, table = pickle.loads(cache.read_bytes())
        if saved_signature == signature:
            return table
    table = {}
    for doc in iter_docs(out_dir):
        digest = hashlib.blake2b(canonical(doc).encode(), digest_size=12).digest()
        table.setdefault(json.dumps(doc.get("id")), Counter())[digest] += 1
    cache.write_bytes(pickle.dumps((signature, table)))
    return table


def first_diff(left_dir: Path, right_dir: Path, doc_id: str) -> str:
    """A readable description of how the two systems' versions of one document differ."""
    def find(out_dir: Path) -> list[dict]:
        return [d for d in iter_docs(out_dir) if json.dumps(d.get("id")) == doc_id]

    left, right = find(left_dir), find(right_dir)
    if len(left) != len(right):
        return f"id {doc_id}: {len(left)} copies vs {len(right)} copies"
    a, b = left[0], right[0]
    lines = [f"id {doc_id}:"]
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            continue
        va, vb = a.get(key, "<missing>"), b.get(key, "<missing>")
        if isinstance(va, str) and isinstance(vb, str):
            at = next((i for i, (x, y) in enumerate(zip(va, vb)) if x != y), min(len(va), len(vb)))
            lines.append(f"  {key}: lengths {len(va)} vs {len(vb)}, first difference at char {at}: "
                         f"{va[max(0, at - 40):at + 40]!r} vs {vb[max(0, at - 40):at + 40]!r}")
        else:
            lines.append(f"  {key}: {json.dumps(va)[:300]} vs {json.dumps(vb)[:300]}")
    return "\n".join(lines)


def compare(left_name: str, left_dir: Path, right_name: str, right_dir: Path) -> tuple[int, str]:
    """Number of ids whose documents differ (missing, extra or changed), and a report line."""
    left, right = digests_by_id(left_dir), digests_by_id(right_dir)
    bad = sorted(i for i in set(left) | set(right) if left.get(i) != right.get(i))
    kept_left, kept_right = sum(map(sum, map(Counter.values, left.values()))), sum(map(sum, map(Counter.values, right.values())))
    report = f"{left_name} ({kept_left} docs) vs {right_name} ({kept_right} docs): "
    names_left, names_right = [p.name for p in output_files(left_dir)], [p.name for p in output_files(right_dir)]
    if names_left != names_right:
        report += f"(output files differ: {names_left} vs {names_right}) "
    if not bad:
        return 0, report + "identical"
    only_left = sum(1 for i in bad if i not in right)
    only_right = sum(1 for i in bad if i not in left)
    report += (f"{len(bad)} ids differ ({only_left} only in {left_name}, {only_right} only in {right_name}, "
               f"{len(bad) - only_left - only_right} changed)\n") + first_diff(left_dir, right_dir, bad[0])
    return len(bad), report


# ------------------------------------------------------------------------------ runs
def run_mix(system: str, cmd_prefix: list[str], syntax: str, corpus_dir: Path, out_dir: Path, processes: int):
    """One mixer run into a fresh output dir (both systems would skip the shards an earlier run finished)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [*cmd_prefix, "-c", str(recipe(syntax)), "mix", "--processes", str(processes)]
    print(f"[mix] {system}: {' '.join(cmd)}", file=sys.stderr)
    result = measure(cmd, env={"DOLMA_BENCH_CORPUS": str(corpus_dir), "DOLMA_BENCH_OUTPUT": str(out_dir)})
    if result.returncode != 0 or not output_files(out_dir):
        print(f"[mix] {system} failed (rc={result.returncode}):\n{result.stderr[-3000:]}", file=sys.stderr)
    return result


FLOOR = "floor: gunzip+parse+gzip"
FLOOR_WITH_ATTRIBUTES = "floor + attribute files read"
FLOORS = {FLOOR: (), FLOOR_WITH_ATTRIBUTES: ATTRIBUTE_SETS}
SYSTEMS = [*FLOORS, *(f"upstream {s}" for s in SYNTAXES), *(f"dolma-sql {s}" for s in SYNTAXES)]
CLI_NAMES = {"floor": FLOOR, "floor-attributes": FLOOR_WITH_ATTRIBUTES, **{s.replace(" ", "-"): s for s in SYSTEMS[2:]}}
CHECKS = [("upstream jsonpath", "upstream jq")] + [(f"upstream {s}", f"dolma-sql {s}") for s in SYNTAXES]


def run_system(system: str, corpus_dir: Path, run_dir: Path, processes: int) -> Row:
    info = corpus_info(corpus_dir)
    if system in FLOORS:
        row = floor_row(system, "documents", info, processes, out_dir=run_dir / "floor", attributes=FLOORS[system])
        shutil.rmtree(run_dir / "floor", ignore_errors=True)
        return row
    tool, syntax = system.split()
    prefix = [str(oracle_dolma())] if tool == "upstream" else dolma_sql_cmd()
    return Row.of(system, run_mix(system, prefix, syntax, corpus_dir, output_dir(run_dir, system), processes), info)


def output_dir(run_dir: Path, system: str) -> Path:
    return run_dir / system.replace(" ", "-")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--skip-upstream", action="store_true",
                        help="reuse the last upstream timings and outputs for these corpus parameters and recipes")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run the floors and dolma-sql N times, interleaved, and show each one's median run (upstream runs once)")
    parser.add_argument("--systems", nargs="*", metavar="SYSTEM", choices=list(CLI_NAMES),
                        help="run only these (the others are shown from the last run, marked cached): "
                             + " ".join(CLI_NAMES))
    args = parser.parse_args(argv)

    corpus_dir = corpus(args.docs, args.files, args.seed)
    info = corpus_info(corpus_dir)
    upstream_attributes(corpus_dir, ATTRIBUTE_SETS, processes=args.processes)
    run_dir = CACHE / f"mix-{args.docs}-{args.files}-{args.seed}-p{args.processes}"
    run_dir.mkdir(parents=True, exist_ok=True)

    # the last result of every system, valid only for the recipes it was measured with
    results_file = run_dir / "results.json"
    cached = saved_results(results_file, recipes_digest())
    selected = SYSTEMS if args.systems is None else [CLI_NAMES[s] for s in args.systems]
    if args.skip_upstream:
        selected = [s for s in selected if not (s.startswith("upstream") and s in cached)]
    runs: dict[str, list[Row]] = {}
    attempts = max(1, args.repeat)
    for attempt in range(attempts):
        for system in selected:
            if attempt == 0 or not system.startswith("upstream"):
                runs.setdefault(system, []).append(run_system(system, corpus_dir, run_dir, args.processes))
                if attempt == attempts - 1 or system.startswith("upstream"):  # saved as soon as it is final
                    save_result(results_file, median_run(runs[system]), recipes_digest())
    rows: dict[str, Row] = {}
    for system in SYSTEMS:
        if system in runs:
            rows[system] = median_run(runs[system])
        elif system in cached:
            rows[system] = cached[system]

    mismatches = 0
    print("\ncorrectness (documents compared as multisets by id, metadata.provenance ignored):")
    for left, right in CHECKS:
        if all(n in rows and rows[n].ok and output_files(output_dir(run_dir, n)) for n in (left, right)):
            count, report = compare(left, output_dir(run_dir, left), right, output_dir(run_dir, right))
            mismatches += count
            print(("  OK   " if count == 0 else "  DIFF ") + report)
        else:
            print(f"  SKIP {left} vs {right}: not run, failed, or no output")

    table = list(rows.values())
    upstream_best = min((r for r in table if r.system.startswith("upstream") and r.ok), key=lambda r: r.seconds, default=None)
    baselines = {f"× vs {upstream_best.system}": upstream_best.system} if upstream_best else {}
    floors = {header: name for header, name in (("÷ floor", FLOOR), ("÷ floor+attrs", FLOOR_WITH_ATTRIBUTES)) if name in rows}
    if args.repeat > 1 and FLOOR in runs:
        for system in (s for s in runs if s.startswith("dolma-sql")):
            attempt_ratios(f"{system} / floor", runs[system], runs[FLOOR])
    print_table(table, title=f"mix: {info.docs:,} docs, {info.bytes_uncompressed / 1e6:,.0f} MB JSONL in {len(info.files)} files, "
                             f"{args.processes} processes (target: JSONPath and jq each ≤ 2× the floor)", baselines=baselines, floors=floors)
    return 1 if mismatches or not all(r.ok for r in table) else 0


if __name__ == "__main__":
    sys.exit(main())
