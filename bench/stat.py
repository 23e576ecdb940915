"""Stat benchmark: upstream ``dolma stat`` vs ``dolma-sql stat`` on the attributes of the bench corpus, and the floor.

    python bench/stat.py [--docs 200000] [--files 20] [--processes 2] [--sets gopher pii c4 dedupe_paragraphs]

On the cached corpus with its upstream-made attribute sets (``common.upstream_attributes``), it runs, each
as a process of its own: the floor (every attribute file gunzipped and parsed by Arrow's JSON reader, as
``stat`` reads them, nothing else; ``floors.py``, kind ``stat``), upstream ``dolma stat`` and ``dolma-sql
stat`` on the same files with the same process count; checks that both reports have equal counts, and
prints seconds, CPU seconds, peak RSS (process tree and each process), the ratio to upstream and how many
times the floor dolma-sql costs. (``sql.py`` (b) times the same pair on the 1M corpus's dolma-sql-made
attributes.)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from common import DEFAULT_ATTRIBUTE_SETS, Row, corpus, corpus_info, dolma_sql_cmd, measure, oracle_dolma, print_table, upstream_attributes
from floors import floor_row
from sql import read_report, same_counts

FLOOR = "floor: gunzip + parse of the attribute files"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--sets", nargs="+", default=[*DEFAULT_ATTRIBUTE_SETS, "c4"])
    parser.add_argument("--skip-upstream", action="store_true")
    args = parser.parse_args()

    corpus_dir = corpus(args.docs, args.files)
    info = corpus_info(corpus_dir)
    upstream_attributes(corpus_dir, args.sets, processes=args.processes)
    files = sorted(path for name in args.sets for path in (corpus_dir / "attributes" / name).glob("*.jsonl.gz"))
    print(f"[bench] {len(files)} attribute files of {', '.join(args.sets)}", file=sys.stderr)

    rows: list[Row] = [floor_row(FLOOR, "stat", info, args.processes, files=files)]
    notes = []
    with tempfile.TemporaryDirectory(dir=corpus_dir.parent) as scratch:
        # one glob for both (upstream takes several only with as many destinations): the sets linked side by side
        for name in args.sets:
            (Path(scratch) / "sets" / name).parent.mkdir(exist_ok=True)
            (Path(scratch) / "sets" / name).symlink_to(corpus_dir / "attributes" / name)
        flags = ["stat", "--attributes", str(Path(scratch) / "sets" / "*" / "*.jsonl.gz"), "--processes", str(args.processes)]
        reports = {"dolma-sql stat": Path(scratch) / "ours", "upstream dolma stat": Path(scratch) / "upstream"}
        systems = {"dolma-sql stat": dolma_sql_cmd()}
        if not args.skip_upstream:
            systems["upstream dolma stat"] = [str(oracle_dolma())]
        for system, prefix in systems.items():
            print(f"[bench] {system} ...", file=sys.stderr)
            rows.append(Row.of(system, measure([*prefix, *flags, "--report", str(reports[system])]), info))
        if all(row.ok for row in rows) and len(systems) == 2:
            notes.append(same_counts(read_report(reports["dolma-sql stat"]), read_report(reports["upstream dolma stat"])))
    print_table(rows, title=f"stat: {len(files)} attribute files ({', '.join(args.sets)}) of {info.docs:,} docs, {args.processes} processes",
                baselines={} if args.skip_upstream else {"× vs upstream": "upstream dolma stat"}, floors={"÷ floor": FLOOR})
    for note in notes:
        print(note)
    return 0 if all(row.ok for row in rows) and not any("DIFFERENT" in note for note in notes) else 1


if __name__ == "__main__":
    sys.exit(main())
