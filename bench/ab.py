"""Interleaved A/B of one dolma-sql command line: this checkout against an earlier commit.

    python bench/ab.py --base 38147b4 --rounds 5 --cwd DIR [--clean OUTDIR ...] -- mix recipe.yaml

Each round runs the base commit's code and this checkout's on the same command, in alternating
order, each after removing the ``--clean`` folders (the outputs, so neither run resumes), and prints
the median wall and CPU seconds and peak RSS of each, and their ratio. The base commit is checked
out once into ``bench/.cache/ab-<rev>`` (a git worktree) and run with ``PYTHONPATH`` pointing at it.
CPU seconds are the fair comparison on a shared machine.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from common import compiled, measure

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def checkout(rev: str) -> Path:
    """A worktree of ``rev`` (made once), with the top-level folders that an install maps into the package
    (``udfs/``, ``sql/``, ``recipes/``) linked where an import from the worktree looks for them, and its
    modules compiled as this checkout's are (:func:`common.compiled`), so that neither side pays for it."""
    target = HERE / ".cache" / f"ab-{rev}"
    if not target.exists():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(target), rev], check=True, capture_output=True)
        for folder in ("udfs", "sql", "recipes"):
            (target / "dolma_sql" / folder).symlink_to(target / folder)
    compiled(target)
    return target


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cwd", default=".", help="folder the command runs in")
    parser.add_argument("--clean", action="append", default=[], help="a folder to remove before every run (the command's outputs)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then dolma-sql's arguments")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    systems = {"base": {"PYTHONPATH": str(checkout(args.base))}, "this": {"PYTHONPATH": str(REPO)}}
    results: dict[str, list] = {name: [] for name in systems}
    for round_ in range(args.rounds):
        order = list(systems) if round_ % 2 == 0 else list(reversed(systems))
        for name in order:
            for folder in args.clean:
                shutil.rmtree(Path(args.cwd) / folder, ignore_errors=True)
            result = measure([sys.executable, "-m", "dolma_sql", *command], cwd=args.cwd, env=systems[name])
            if result.returncode != 0:
                print(f"{name} failed (rc {result.returncode}):\n{result.stderr[-2000:]}", file=sys.stderr)
                return 1
            results[name].append(result)
            print(f"round {round_ + 1} {name}: {result.seconds:.2f} s, {result.cpu_seconds:.2f} CPU-s, {result.peak_rss_mb:.0f} MB", flush=True)
    medians = {
        name: (statistics.median(r.seconds for r in runs), statistics.median(r.cpu_seconds for r in runs), statistics.median(r.peak_rss_mb for r in runs))
        for name, runs in results.items()
    }
    for name, (wall, cpu, rss) in medians.items():
        print(f"{name}: median {wall:.2f} s, {cpu:.2f} CPU-s, peak RSS {rss:.0f} MB")
    print(f"this / base: wall {medians['this'][0] / medians['base'][0]:.3f}, CPU {medians['this'][1] / medians['base'][1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
