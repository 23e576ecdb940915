"""Shared benchmark plumbing: cached corpora, cached upstream attributes, measurement, tables.

Every bench runs dolma-sql and upstream dolma 1.2.1 on the same generated corpus in one run.
What is expensive and identical across runs (generating a corpus, tagging it with upstream)
is done once and cached under ``bench/.cache/`` (gitignored); a stamp file marks each cache
entry complete, so an interrupted run is redone instead of reused half-written.

    from common import corpus, upstream_attributes, measure, Row, print_table, oracle_dolma, dolma_sql_cmd

The module is also a small CLI for the I/O floor every bench compares against:
``python bench/common.py floor OUT_DIR FILE... --processes N``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / "bench" / ".cache"
SHARED = Path(os.environ.get("DOLMA_SQL_SHARED", REPO.parent / "shared"))
GENCORPUS = SHARED / "bench" / "gencorpus.py"
ORACLE_HINT = "python -m venv .oracle && .oracle/bin/pip install dolma==1.2.1 pycld2"


# ------------------------------------------------------------------------------ executables
def oracle_dolma() -> Path:
    """Upstream ``dolma`` from ``$DOLMA_SQL_ORACLE`` (a venv or the executable), ``<repo>/.oracle`` or ``/work/.oracle``."""
    candidates = [os.environ.get("DOLMA_SQL_ORACLE"), REPO / ".oracle", REPO.parent / ".oracle", Path("/work/.oracle")]
    for candidate in filter(None, candidates):
        path = Path(candidate)
        for exe in (path / "bin" / "dolma", path):
            if exe.is_file() and os.access(exe, os.X_OK):
                return exe
    raise SystemExit(
        "upstream dolma not found (looked at $DOLMA_SQL_ORACLE, <repo>/.oracle, /work/.oracle).\n"
        f"Create it from the repo root with:  {ORACLE_HINT}"
    )


def dolma_sql_cmd() -> list[str]:
    """How to invoke dolma-sql: the package of this checkout, with this interpreter."""
    return [sys.executable, "-m", "dolma_sql"]


# ------------------------------------------------------------------------------ cache helpers
@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock file, so concurrent benches build a cache entry once, not twice."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run_checked(cmd: Sequence[str], what: str, cwd: Path | None = None) -> float:
    """Run a cache-building command; fail loudly with its stderr tail. Returns the seconds it took."""
    started = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{what} failed (rc={proc.returncode}): {' '.join(map(str, cmd))}\n{proc.stderr[-4000:]}")
    return time.perf_counter() - started


# ------------------------------------------------------------------------------ corpus
@dataclass(frozen=True)
class CorpusInfo:
    """What a bench needs to report throughput: document count and uncompressed JSONL bytes."""

    path: Path
    docs: int
    bytes_uncompressed: int
    files: list[Path]

    @property
    def documents_glob(self) -> str:
        return str(self.path / "documents" / "*.jsonl.gz")


def corpus(docs: int, files: int, seed: int = 0) -> Path:
    """The gencorpus corpus for these parameters, generated once into ``bench/.cache/`` and reused."""
    target = CACHE / f"corpus-{docs}-{files}-{seed}"
    manifest = target / "gencorpus_manifest.json"
    if manifest.exists():
        return target
    if not GENCORPUS.exists():
        raise SystemExit(f"corpus generator missing at {GENCORPUS} (set $DOLMA_SQL_SHARED to the shared/ folder)")
    with locked(CACHE / f"{target.name}.lock"):
        if manifest.exists():  # another bench built it while we waited
            return target
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=CACHE))
        try:
            print(f"[bench] generating {docs} docs in {files} files (seed {seed}) ...", file=sys.stderr)
            _run_checked(
                [sys.executable, Path(__file__).with_name("gencorpus_fixed.py"), GENCORPUS, tmp, "--docs", docs, "--files", files, "--seed", seed, "--jobs", os.cpu_count() or 1],
                "gencorpus",
            )
            if target.exists():  # a half-built leftover without a manifest
                shutil.rmtree(target)
            tmp.chmod(0o755)  # mkdtemp makes it private
            os.rename(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def corpus_info(corpus_dir: Path) -> CorpusInfo:
    """Counts from the generator's manifest (exact, no need to re-read the data)."""
    manifest = json.loads((corpus_dir / "gencorpus_manifest.json").read_text())
    files = sorted((corpus_dir / "documents").glob("*.jsonl.gz"))
    return CorpusInfo(corpus_dir, manifest["counts"]["docs"], manifest["bytes_uncompressed"], files)


# ------------------------------------------------------------------------------ upstream attributes
# name -> how upstream produces it. Tagger sets become attributes/<name>/ via --experiment <name>.
TAGGER_SETS = {
    "gopher": ["gopher_v1"],
    "pii": ["pii_regex_with_counts_fast_v2"],
    "c4": ["c4_v2"],
}
DEDUPE_SETS = {
    # paragraph-mode dedupe, the way dolma's CC pipeline removes repeated boilerplate paragraphs
    "dedupe_paragraphs": {"attribute_name": "bff_duplicate_paragraph_spans", "skip_empty": True},
}
DEFAULT_ATTRIBUTE_SETS = ("gopher", "pii", "dedupe_paragraphs")


def _dedupe_config(corpus_dir: Path, name: str, docs: int, processes: int) -> dict:
    spec = DEDUPE_SETS[name]
    return {
        "documents": [str(corpus_dir / "documents" / "*.jsonl.gz")],
        "dedupe": {
            "name": name,
            "paragraphs": {"attribute_name": spec["attribute_name"]},
            "skip_empty": spec["skip_empty"],
        },
        "bloom_filter": {
            "file": str(corpus_dir / ".stamps" / f"{name}.bloom"),
            "read_only": False,
            # ~15 paragraphs per doc; a tiny false-positive rate keeps both systems' exact-set semantics equal
            "estimated_doc_count": max(1000, docs * 15),
            "desired_false_positive_rate": 1e-7,
        },
        "processes": processes,
    }


def upstream_attributes(corpus_dir: Path, sets: Sequence[str] = DEFAULT_ATTRIBUTE_SETS, processes: int = 2) -> dict[str, dict]:
    """Attribute sets for ``corpus_dir`` made by upstream dolma, each built once (stamped) and reused.

    Returns ``{name: stamp}``; each stamp records the upstream command and its wall time, which
    tagger/dedupe benches may quote as the upstream side instead of paying it again.
    """
    stamps_dir = corpus_dir / ".stamps"
    stamps: dict[str, dict] = {}
    for name in sets:
        if name not in TAGGER_SETS and name not in DEDUPE_SETS:
            raise SystemExit(f"unknown attribute set {name!r}; known: {sorted(TAGGER_SETS) + sorted(DEDUPE_SETS)}")
        stamp = stamps_dir / f"{name}.json"
        with locked(stamps_dir / f"{name}.lock"):
            if not stamp.exists():
                stamp.parent.mkdir(parents=True, exist_ok=True)
                shutil.rmtree(corpus_dir / "attributes" / name, ignore_errors=True)
                cmd = _upstream_attribute_cmd(corpus_dir, name, processes)
                print(f"[bench] upstream {name} attributes for {corpus_dir.name} (paid once) ...", file=sys.stderr)
                result = measure(cmd, cwd=corpus_dir)
                if result.returncode != 0:
                    raise SystemExit(f"upstream {name} failed (rc={result.returncode}): {' '.join(cmd)}\n{result.stderr[-4000:]}")
                _check_attribute_files(corpus_dir, name)
                stamp.write_text(json.dumps({"cmd": cmd, "seconds": result.seconds, "peak_rss_mb": result.peak_rss_mb,
                                             "processes": processes}, indent=1))
            stamps[name] = json.loads(stamp.read_text())
    return stamps


def _upstream_attribute_cmd(corpus_dir: Path, name: str, processes: int) -> list[str]:
    dolma = str(oracle_dolma())
    if name in TAGGER_SETS:
        return [dolma, "tag", "--documents", str(corpus_dir / "documents" / "*.jsonl.gz"),
                "--taggers", *TAGGER_SETS[name], "--experiment", name, "--processes", str(processes)]
    bloom = corpus_dir / ".stamps" / f"{name}.bloom"
    bloom.unlink(missing_ok=True)  # upstream silently reuses a stale filter (everything would be a duplicate)
    config = corpus_dir / ".stamps" / f"{name}.dedupe.json"
    info = corpus_info(corpus_dir)
    config.write_text(json.dumps(_dedupe_config(corpus_dir, name, info.docs, processes), indent=1))
    return [dolma, "-c", str(config), "dedupe"]


def _check_attribute_files(corpus_dir: Path, name: str) -> None:
    """Upstream can exit 0 after a worker panic; make sure every document file got its attribute file."""
    for doc in sorted((corpus_dir / "documents").glob("*.jsonl.gz")):
        attr = corpus_dir / "attributes" / name / doc.name
        if not attr.exists():
            raise SystemExit(f"upstream {name} exited 0 but wrote no {attr}")


# ------------------------------------------------------------------------------ measurement
@dataclass
class Result:
    seconds: float
    peak_rss_mb: float
    returncode: int
    stdout: str
    stderr: str
    cpu_seconds: float = 0.0  # user+sys of the process and its reaped children: robust to a busy machine


def _tree_rss(proc: psutil.Process) -> int:
    """RSS of a process and all its descendants right now (concurrent workers add up)."""
    total = 0
    try:
        members = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for member in members:
        try:
            total += member.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(cmd: Sequence[str], cwd: Path | str | None = None, env: dict | None = None, poll: float = 0.05) -> Result:
    """Run ``cmd``; wall seconds and peak RSS of its whole process tree (sampled every ``poll`` s).

    RSS of concurrent processes is summed, so shared pages count once per process: a fair,
    slightly pessimistic figure for fork-based pools, and exact for single-process runs.
    """
    full_env = None if env is None else {**os.environ, **env}
    parent_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        popen = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=full_env, stdout=out, stderr=err)
        proc = psutil.Process(popen.pid)
        peak = 0
        while True:
            pid, status, usage = os.wait4(popen.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _tree_rss(proc))
            time.sleep(poll)
        seconds = time.perf_counter() - started
        popen.returncode = os.waitstatus_to_exitcode(status)
        # the kernel's max-RSS of the child (or its largest reaped descendant) is a lower bound, unless it
        # is this process's own: Linux carries the high-water mark of the memory a child execs from (ours)
        if usage.ru_maxrss > parent_peak:
            peak = max(peak, usage.ru_maxrss * 1024)
        out.seek(0)
        err.seek(0)
        return Result(seconds, peak / 2**20, popen.returncode, out.read().decode(errors="replace"),
                      err.read().decode(errors="replace"), usage.ru_utime + usage.ru_stime)


# ------------------------------------------------------------------------------ reporting
@dataclass
class Row:
    """One measured system in a bench table."""

    system: str
    seconds: float
    docs: int
    bytes: int
    peak_rss_mb: float
    ok: bool = True
    note: str = ""
    cpu_seconds: float | None = None

    @classmethod
    def of(cls, system: str, result: Result, info: CorpusInfo, note: str = "") -> Row:
        ok = result.returncode == 0
        return cls(system, result.seconds, info.docs, info.bytes_uncompressed, result.peak_rss_mb, ok,
                   note or ("" if ok else f"rc={result.returncode}: {_last_line(result.stderr)}"), result.cpu_seconds)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


def _ratio(base: Row | None, row: Row, field: str) -> str:
    """``base / row`` for a time field: > 1 means ``row`` is faster than the baseline."""
    numerator, denominator = (getattr(base, field) if base else None), getattr(row, field)
    if not (base and base.ok and row.ok and numerator and denominator):
        return "–"
    return f"{numerator / denominator:.2f}×"


def print_table(rows: Sequence[Row], title: str = "benchmark", baselines: dict[str, str] | None = None) -> None:
    """Seconds, CPU seconds, docs/s, MB/s (uncompressed input), peak RSS and speed-up ratios against baselines.

    ``baselines`` maps a column header to the system name it divides by (``×`` > 1 means faster
    than that baseline). By default: the fastest successful row whose name starts with "upstream".
    """
    from rich.console import Console
    from rich.table import Table

    by_name = {row.system: row for row in rows}
    if baselines is None:
        upstream = [r for r in rows if r.system.startswith("upstream") and r.ok]
        baselines = {"× vs upstream": min(upstream, key=lambda r: r.seconds).system} if upstream else {}
    primary = next(iter(baselines.values()), None)
    headers = ["system", "seconds", "CPU s", "docs/s", "MB/s", "peak RSS MB", *baselines]
    if primary:
        headers.append(f"× CPU vs {primary}")
    table = Table(title=title)
    for header in (*headers, "note"):
        table.add_column(header, justify="left" if header in ("system", "note") else "right")
    for row in rows:
        ratios = [_ratio(by_name.get(name), row, "seconds") for name in baselines.values()]
        if primary:
            ratios.append(_ratio(by_name.get(primary), row, "cpu_seconds"))
        table.add_row(
            row.system,
            f"{row.seconds:.2f}",
            f"{row.cpu_seconds:.1f}" if row.cpu_seconds else "–",
            f"{row.docs / row.seconds:,.0f}" if row.seconds > 0 else "–",
            f"{row.bytes / 1e6 / row.seconds:.1f}" if row.seconds > 0 else "–",
            f"{row.peak_rss_mb:,.0f}",
            *ratios,
            row.note if row.ok else f"[red]FAILED[/red] {row.note}",
        )
    Console(width=200).print(table)
    load = os.getloadavg()
    print(f"load average now: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} CPUs "
          "(wall times are only comparable on an otherwise idle machine; CPU s is less sensitive)")


# ------------------------------------------------------------------------------ saved results
def save_result(results_file: Path, row: Row, valid_for: str) -> None:
    """Record one system's row; re-read under a lock so concurrent bench runs don't clobber each other.

    ``valid_for`` is a digest of what the measurement depends on (recipes, taggers); a later run
    reuses the row only while it is unchanged.
    """
    with locked(results_file.with_suffix(".lock")):
        results = json.loads(results_file.read_text()) if results_file.exists() else {}
        results[row.system] = {**asdict(row), "valid_for": valid_for}
        results_file.write_text(json.dumps(results, indent=1))


def saved_results(results_file: Path, valid_for: str) -> dict[str, Row]:
    """The rows saved by earlier runs that are still valid, each noted "(cached)"."""
    saved = json.loads(results_file.read_text()) if results_file.exists() else {}
    return {name: Row(**{**data, "note": (data["note"] + " (cached)").strip()})
            for name, data in saved.items() if data.pop("valid_for", None) == valid_for}


# ------------------------------------------------------------------------------ the I/O floor
def _floor_file(task: tuple[str, str, tuple[str, ...]]) -> int:
    """Decompress, parse every JSON line, re-serialize, recompress: the work no mixer can skip.

    The files in ``task[2]`` (a mixer's attribute files for these documents) are decompressed
    and parsed too, but not written.
    """
    import msgspec
    from isal import igzip

    source, target, also = task
    decoder, encoder = msgspec.json.Decoder(), msgspec.json.Encoder()
    count = 0
    with igzip.open(source, "rb") as reader, igzip.open(target, "wb") as writer:
        for line in reader:
            writer.write(encoder.encode(decoder.decode(line)) + b"\n")
            count += 1
    for path in also:
        with igzip.open(path, "rb") as reader:
            for line in reader:
                decoder.decode(line)
    return count


def floor_cmd(files: Sequence[Path], out_dir: Path, processes: int, attributes: Sequence[str] = ()) -> list[str]:
    """The subprocess command measuring the floor (so its RSS is measured like everything else).

    With ``attributes``, the floor also reads those attribute sets of every file (dolma's layout).
    """
    return [sys.executable, str(Path(__file__).resolve()), "floor", str(out_dir), *map(str, files),
            "--processes", str(processes), *(["--attributes", *attributes] if attributes else [])]


def _floor_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="common.py floor", description=_floor_file.__doc__)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--attributes", nargs="*", default=[], help="attribute sets read beside each file")
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    tasks = [(f, str(args.out_dir / Path(f).name), tuple(f.replace("/documents/", f"/attributes/{name}/") for name in args.attributes))
             for f in args.files]
    if args.processes == 1:
        total = sum(map(_floor_file, tasks))
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
            total = sum(pool.imap_unordered(_floor_file, tasks))
    print(f"{total} documents", file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "floor":
        sys.exit(_floor_main(sys.argv[2:]))
    sys.exit("usage: python bench/common.py floor OUT_DIR FILE... [--processes N]")
