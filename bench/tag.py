"""Tagger benchmark: upstream ``dolma tag`` vs ``dolma-sql tag`` on the same generated corpus.

    python bench/tag.py [--docs 200000] [--files 20] [--processes 2] [--cases a b c d e] [--skip-upstream] [--repeat N]

Cases: (a) gopher_v1, (b) c4_v2, (c) pii_regex_with_counts_fast_v2, (d) cld2_en_paragraph_with_doc_score_v2,
(e) all four in one run. For each case it runs upstream and then dolma-sql (``--ignore_existing``) with the
same documents, taggers and process count, checks that every attribute file is equal (ids, keys, spans,
scores within 1e-5) and prints seconds, CPU seconds, docs/s, MB/s, peak RSS (process tree and each process),
the ratio to upstream and how many times its floor dolma-sql costs: the case's taggers' kernels alone over
pre-decoded Arrow batches (``pycld2.detect`` calls alone for cld2; ``floors.py``).
Upstream's timings and outputs are saved under ``bench/.cache/``; ``--skip-upstream`` reuses them
(marked "cached") so dolma-sql can be re-measured without paying upstream again. With ``--repeat N``, dolma-sql
and the floor run N times, interleaved (every other attempt runs the floor first), each shows its median run,
and their ratio is also printed attempt by attempt (this machine's speed drifts within minutes; upstream runs once).
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path

from common import CACHE, Row, attempt_ratios, corpus, corpus_info, dolma_sql_cmd, measure, median_run, oracle_dolma, print_table, save_result, saved_results
from floors import floor_row

CASES = {
    "a": ["gopher_v1"],
    "b": ["c4_v2"],
    "c": ["pii_regex_with_counts_fast_v2"],
    "d": ["cld2_en_paragraph_with_doc_score_v2"],
    "e": ["gopher_v1", "c4_v2", "pii_regex_with_counts_fast_v2", "cld2_en_paragraph_with_doc_score_v2"],
}
FLOOR_KINDS = {"a": "tag-gopher", "b": "tag-c4", "c": "tag-pii", "d": "tag-cld2", "e": "tag-all"}
"""Each case's floor (``floors.py``): the taggers' kernels alone over pre-decoded Arrow batches (for cld2,
the ``pycld2.detect`` calls alone)."""


def rows_of(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def differences(expected_dir: Path, actual_dir: Path) -> str:
    """'' when every file matches (ids, keys, spans, scores within 1e-5), else the first difference."""
    for expected in sorted(expected_dir.glob("*.jsonl.gz")):
        actual = actual_dir / expected.name
        if not actual.exists():
            return f"missing {actual}"
        for line, (want, got) in enumerate(zip(rows_of(expected), rows_of(actual), strict=True), start=1):
            if want["id"] != got["id"] or set(want["attributes"]) != set(got["attributes"]):
                return f"{actual.name}:{line} ids/keys differ"
            for key, spans in want["attributes"].items():
                mine = got["attributes"][key]
                if len(mine) != len(spans) or any(a[:2] != b[:2] or abs(a[2] - b[2]) > 1e-5 for a, b in zip(spans, mine)):
                    return f"{actual.name}:{line} {key} differs"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--skip-upstream", action="store_true",
                        help="reuse upstream's last timing and output for a case when its taggers are unchanged")
    parser.add_argument("--skip-dolma-sql", action="store_true", help="run (and cache) upstream only")
    parser.add_argument("--no-upstream", action="store_true",
                        help="time dolma-sql and the floor only (while upstream runs apart with --skip-dolma-sql); attributes not compared")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run dolma-sql and the floor N times, interleaved, and show each one's median run")
    args = parser.parse_args()

    corpus_dir = corpus(args.docs, args.files)
    info = corpus_info(corpus_dir)
    documents = info.documents_glob
    results_file = CACHE / f"tag-{args.docs}-{args.files}-p{args.processes}" / "results.json"
    results_file.parent.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    for case in args.cases:
        taggers = CASES[case]
        valid_for = json.dumps(taggers)
        label = f"({case}) {' + '.join(taggers) if len(taggers) < 4 else 'all four'}"
        up_name, sql_name = f"bench_up_{case}", f"bench_sql_{case}"
        common_args = ["tag", "--documents", documents, "--taggers", *taggers, "--processes", str(args.processes)]
        # upstream's output is kept beside the corpus so --skip-upstream can compare against it later
        upstream_row = saved_results(results_file, valid_for).get(f"upstream {label}") if args.skip_upstream else None
        if args.no_upstream:
            upstream_row = None
        elif upstream_row is None or not (corpus_dir / "attributes" / up_name).is_dir():
            shutil.rmtree(corpus_dir / "attributes" / up_name, ignore_errors=True)
            upstream = measure([str(oracle_dolma()), *common_args, "--experiment", up_name], cwd=corpus_dir)
            upstream_row = Row.of(f"upstream {label}", upstream, info)
            save_result(results_file, upstream_row, valid_for)
        if upstream_row is not None:
            rows.append(upstream_row)
        if args.skip_dolma_sql:
            continue
        ours_runs, floor_runs = [], []

        def run_ours() -> None:
            shutil.rmtree(corpus_dir / "attributes" / sql_name, ignore_errors=True)
            ours = measure([*dolma_sql_cmd(), *common_args, "--experiment", sql_name, "--ignore_existing"], cwd=corpus_dir)
            note = ""
            if upstream_row is not None and upstream_row.ok and ours.returncode == 0:
                diff = differences_renamed(corpus_dir / "attributes" / up_name, corpus_dir / "attributes" / sql_name, up_name, sql_name)
                note = "attributes equal" if not diff else f"DIFFERENT: {diff}"
            ours_runs.append(Row.of(f"dolma-sql {label}", ours, info, note=note))
            shutil.rmtree(corpus_dir / "attributes" / sql_name, ignore_errors=True)

        def run_floor() -> None:
            floor_runs.append(floor_row(f"floor {label}", FLOOR_KINDS[case], info, args.processes))

        for attempt in range(max(1, args.repeat)):
            # every other attempt runs the floor first, so that this machine's drift in speed within an
            # attempt moves the attempts' ratios both ways rather than one
            for step in (run_ours, run_floor) if attempt % 2 == 0 else (run_floor, run_ours):
                step()
        differing = [run for run in ours_runs if run.note.startswith("DIFFERENT")]  # shown whichever attempt it was
        rows += [differing[0] if differing else median_run(ours_runs), median_run(floor_runs)]
        if len(ours_runs) > 1:
            attempt_ratios(f"dolma-sql {label} / its floor", ours_runs, floor_runs)
    for case in args.cases:
        group = [r for r in rows if r.system.split(" ", 1)[1].startswith(f"({case})")]
        floors = {"÷ floor": group[-1].system} if group[-1].system.startswith("floor") else {}
        print_table(group, title=f"dolma tag vs dolma-sql tag, case ({case}), {info.docs:,} docs, {args.processes} processes",
                    baselines={"× vs upstream": group[0].system} if group[0].system.startswith("upstream") else {}, floors=floors)


def differences_renamed(expected_dir: Path, actual_dir: Path, expected_name: str, actual_name: str) -> str:
    """:func:`differences` after mapping ``actual_name__`` key prefixes to ``expected_name__``."""
    renamed = actual_dir.parent / f"{actual_dir.name}.renamed"
    shutil.rmtree(renamed, ignore_errors=True)
    renamed.mkdir()
    for path in sorted(actual_dir.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as source, gzip.open(renamed / path.name, "wt", encoding="utf-8") as target:
            for line in source:
                target.write(line.replace(f'"{actual_name}__', f'"{expected_name}__'))
    try:
        return differences(expected_dir, renamed)
    finally:
        shutil.rmtree(renamed, ignore_errors=True)


if __name__ == "__main__":
    main()
