"""Shared benchmark plumbing: cached corpora, cached upstream attributes, measurement, tables.

Every bench runs dolma-sql and upstream dolma 1.2.1 on the same generated corpus in one run.
What is expensive and identical across runs (generating a corpus, tagging it with upstream)
is done once and cached under ``bench/.cache/`` (gitignored); a stamp file marks each cache
entry complete, so an interrupted run is redone instead of reused half-written.

    from common import corpus, upstream_attributes, measure, Row, print_table, oracle_dolma, dolma_sql_cmd

The floors every bench compares against are in ``floors.py``.
"""

from __future__ import annotations

import contextlib
import compileall
import fcntl
import functools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
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


@functools.cache
def compiled(root: Path = REPO) -> None:
    """The modules of the checkout at ``root`` compiled as an install compiles them: under
    ``PYTHONDONTWRITEBYTECODE`` every measured process (dolma-sql's, a floor's) would compile them
    again, a cost that neither an installed dolma-sql nor upstream's installed package pays."""
    for package in ("dolma_sql", "udfs"):
        compileall.compile_dir(root / package, quiet=1)


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
    driver_peak_mb: float | None = None  # the command's own process (for dolma-sql: the caller, which may run units too)
    worker_peaks_mb: tuple[float, ...] = ()  # every descendant process (pool workers, helpers), largest first

    @property
    def largest_process_mb(self) -> float | None:
        """Peak RSS of the largest single process: what one core of a big node must hold."""
        peaks = [p for p in (self.driver_peak_mb, *self.worker_peaks_mb) if p is not None]
        return max(peaks) if peaks else None


def _high_water_kb(pid: int) -> int:
    """The kernel's peak RSS of one process so far (``VmHWM``), so a sample between two polls loses nothing
    but the growth in its last poll interval; 0 when it has gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _sample(proc: psutil.Process, peaks: dict[int, int]) -> int:
    """RSS of a process and all its descendants right now (concurrent workers add up); each member's
    high-water mark is kept in ``peaks`` (bytes, by pid)."""
    total = 0
    try:
        members = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for member in members:
        try:
            rss = member.memory_info().rss
        except psutil.Error:
            continue
        total += rss
        peaks[member.pid] = max(peaks.get(member.pid, 0), rss, _high_water_kb(member.pid) * 1024)
    return total


def measure(cmd: Sequence[str], cwd: Path | str | None = None, env: dict | None = None, poll: float = 0.05) -> Result:
    """Run ``cmd``; wall and CPU seconds, peak RSS of its whole process tree (sampled every ``poll`` s)
    and of each process in it (the driver, and every worker by its own high-water mark).

    RSS of concurrent processes is summed for the tree, so shared pages count once per process: a fair,
    slightly pessimistic figure for fork-based pools, and exact for single-process runs. The per-process
    peaks are what a worker holds, the figure that multiplies by the cores of a node.
    """
    compiled()
    full_env = None if env is None else {**os.environ, **env}
    parent_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        popen = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=full_env, stdout=out, stderr=err)
        proc = psutil.Process(popen.pid)
        peak = 0
        peaks: dict[int, int] = {}
        while True:
            pid, status, usage = os.wait4(popen.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _sample(proc, peaks))
            time.sleep(poll)
        seconds = time.perf_counter() - started
        popen.returncode = os.waitstatus_to_exitcode(status)
        # the kernel's max-RSS of the child (or its largest reaped descendant) is a lower bound, unless it
        # is this process's own: Linux carries the high-water mark of the memory a child execs from (ours)
        largest_reaped = usage.ru_maxrss * 1024 if usage.ru_maxrss > parent_peak else 0
        peak = max(peak, largest_reaped)
        driver = peaks.pop(popen.pid, 0)
        workers = sorted(peaks.values(), reverse=True)
        if not workers:  # one process: the kernel's figure is exact, and catches a peak in the last poll interval
            driver = max(driver, largest_reaped)
        out.seek(0)
        err.seek(0)
        return Result(seconds, peak / 2**20, popen.returncode, out.read().decode(errors="replace"),
                      err.read().decode(errors="replace"), usage.ru_utime + usage.ru_stime,
                      driver / 2**20 if driver else None, tuple(w / 2**20 for w in workers))


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
    driver_peak_mb: float | None = None
    worker_peaks_mb: tuple[float, ...] = ()

    @classmethod
    def of(cls, system: str, result: Result, info: CorpusInfo, note: str = "") -> Row:
        ok = result.returncode == 0
        return cls(system, result.seconds, info.docs, info.bytes_uncompressed, result.peak_rss_mb, ok,
                   note or ("" if ok else f"rc={result.returncode}: {_last_line(result.stderr)}"), result.cpu_seconds,
                   result.driver_peak_mb, tuple(result.worker_peaks_mb))

    @property
    def largest_process_mb(self) -> float | None:
        peaks = [p for p in (self.driver_peak_mb, *self.worker_peaks_mb) if p is not None]
        return max(peaks) if peaks else None

    def processes_text(self, shown: int = 3) -> str:
        """``driver | worker, worker, …`` peak RSS in MB, the largest workers first."""
        if self.driver_peak_mb is None:
            return "–"
        workers = ", ".join(f"{w:,.0f}" for w in self.worker_peaks_mb[:shown])
        more = f" +{len(self.worker_peaks_mb) - shown}" if len(self.worker_peaks_mb) > shown else ""
        return f"{self.driver_peak_mb:,.0f}" + (f" | {workers}{more}" if workers else "")


def median_run(runs: list[Row]) -> Row:
    """The run of median wall time (the lower middle one of an even count); any failed run is shown instead."""
    failed = [run for run in runs if not run.ok]
    if failed:
        return failed[0]
    middle = sorted(runs, key=lambda run: run.seconds)[(len(runs) - 1) // 2]
    if len(runs) == 1:
        return middle
    spread = f"median of {len(runs)}: {min(r.seconds for r in runs):.2f}-{max(r.seconds for r in runs):.2f} s"
    return replace(middle, note=f"{middle.note}; {spread}" if middle.note else spread)


def attempt_ratios(label: str, runs: Sequence[Row], bases: Sequence[Row]) -> tuple[float, float] | None:
    """Print ``runs`` over ``bases`` attempt by attempt (the pair of each attempt ran minutes apart at most, so
    their ratio does not move with this machine's speed, which drifts by 10-40% within minutes), wall and CPU;
    return the medians (wall, CPU), or None when no attempt has both."""
    pairs = [(ours, base) for ours, base in zip(runs, bases) if ours.ok and base.ok and base.seconds]
    if not pairs:
        return None
    walls = sorted(ours.seconds / base.seconds for ours, base in pairs)
    cpus = sorted(ours.cpu_seconds / base.cpu_seconds for ours, base in pairs if ours.cpu_seconds and base.cpu_seconds) or [float("nan")]
    median_wall, median_cpu = walls[(len(walls) - 1) // 2], cpus[(len(cpus) - 1) // 2]
    print(f"{label}, attempt by attempt: wall {', '.join(f'{r:.2f}' for r in walls)} (median {median_wall:.2f}×); "
          f"CPU {', '.join(f'{r:.2f}' for r in cpus)} (median {median_cpu:.2f}×)")
    return median_wall, median_cpu


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


def _ratio(base: Row | None, row: Row, field: str) -> str:
    """``base / row`` for a time field: > 1 means ``row`` is faster than the baseline."""
    numerator, denominator = (getattr(base, field) if base else None), getattr(row, field)
    if not (base and base.ok and row.ok and numerator and denominator):
        return "–"
    return f"{numerator / denominator:.2f}×"


def _times_floor(floor: Row | None, row: Row) -> str:
    """``row / floor`` for wall and CPU seconds: how many times the floor's work ``row`` costs (1.0 = at the floor)."""
    if not (floor and floor.ok and row.ok) or row.system.startswith("floor"):
        return "–"
    wall = f"{row.seconds / floor.seconds:.2f}" if floor.seconds else "–"
    cpu = f"{row.cpu_seconds / floor.cpu_seconds:.2f}" if row.cpu_seconds and floor.cpu_seconds else "–"
    return f"{wall} / {cpu}"


def print_table(rows: Sequence[Row], title: str = "benchmark", baselines: dict[str, str] | None = None,
                floors: dict[str, str] | None = None) -> None:
    """Seconds, CPU seconds, docs/s, MB/s (uncompressed input), peak RSS (process tree, largest single
    process, driver | workers) and ratios against baselines and floors.

    ``baselines`` maps a column header to the system name it divides by (``×`` > 1 means faster
    than that baseline). By default: the fastest successful row whose name starts with "upstream".
    ``floors`` maps a column header to a floor's system name: the column shows ``row / floor`` for
    wall and CPU seconds (how close to the limit a row is: 1.0 is at the floor), for every row but
    the floors (whose names start with "floor").
    """
    from rich.console import Console
    from rich.table import Table

    by_name = {row.system: row for row in rows}
    if baselines is None:
        upstream = [r for r in rows if r.system.startswith("upstream") and r.ok]
        baselines = {"× vs upstream": min(upstream, key=lambda r: r.seconds).system} if upstream else {}
    floors = floors or {}
    primary = next(iter(baselines.values()), None)
    headers = ["system", "seconds", "CPU s", "docs/s", "MB/s", "peak RSS MB tree", "largest process MB", "driver | workers MB", *baselines]
    if primary:
        headers.append(f"× CPU vs {primary}")
    headers.extend(f"{header} (wall / CPU)" for header in floors)
    table = Table(title=title)
    for header in (*headers, "note"):
        table.add_column(header, justify="left" if header in ("system", "note") else "right")
    for row in rows:
        ratios = [_ratio(by_name.get(name), row, "seconds") for name in baselines.values()]
        if primary:
            ratios.append(_ratio(by_name.get(primary), row, "cpu_seconds"))
        ratios.extend(_times_floor(by_name.get(name), row) for name in floors.values())
        largest = row.largest_process_mb
        table.add_row(
            row.system,
            f"{row.seconds:.2f}",
            f"{row.cpu_seconds:.1f}" if row.cpu_seconds else "–",
            f"{row.docs / row.seconds:,.0f}" if row.seconds > 0 else "–",
            f"{row.bytes / 1e6 / row.seconds:.1f}" if row.seconds > 0 else "–",
            f"{row.peak_rss_mb:,.0f}",
            f"{largest:,.0f}" if largest is not None else "–",
            row.processes_text(),
            *ratios,
            row.note if row.ok else f"[red]FAILED[/red] {row.note}",
        )
    Console(width=320).print(table)
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
    return {name: Row(**{**data, "note": (data["note"] + " (cached)").strip(), "worker_peaks_mb": tuple(data.get("worker_peaks_mb", ()))})
            for name, data in saved.items() if data.pop("valid_for", None) == valid_for}
