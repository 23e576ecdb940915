"""A tag run whose unit is held by the ``pause_v1`` tagger until the test lets it go, so that a fault test
knows which process runs that unit and acts on an event rather than a timer: the Ray and the local
executor's fault tests share it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import yaml
from runtime_helpers import output_contents
from tag_helpers import write_jsonl_gz

import dolma_sql
from conftest import REPO
from dolma_sql.runtime.local import LocalExecutor

PAUSED = "b"
"""The document file whose unit the tagger holds."""

EVENT_SECONDS = 180
"""How long an event may take on a busy machine before the test fails."""


def wait_for(condition: Callable[[], object], what: str, *, seconds: float = EVENT_SECONDS) -> object:
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)
    return found


class Run:
    """The corpus, the signals folder of the pausing tagger, and the tag config of one test."""

    def __init__(self, root: Path, settings: dict) -> None:
        self.root = root
        self.signals = root / "signals"
        self.signals.mkdir(parents=True)
        self.settings = settings  # how the faulted run runs: its executor, processes
        for name in ("a", PAUSED, "c", "d"):
            documents = [{"id": f"{name}-{index}", "text": f"document {index} of file {name} " * (index + 1)} for index in range(30)]
            if name == PAUSED:
                documents.insert(7, {"id": "pause", "text": str(self.signals)})
            for copy in ("clean", "faulted"):
                write_jsonl_gz(root / copy / "documents" / f"{name}.jsonl.gz", documents)

    def config(self, copy: str) -> dict:
        return {
            "documents": [str(self.root / copy / "documents" / "*.jsonl.gz")],
            "taggers": ["pause_v1", "char_length_v1"],
            "tagger_modules": [str(REPO / "tests" / "pause_tagger.py")],
            "experiment": "p",
        }

    def clean(self) -> dict[str, bytes]:
        """The output of an uninterrupted run (the tagger let go from the start), on the local executor."""
        self.let_go()
        dolma_sql.tag(self.config("clean"), executor=LocalExecutor(1))
        self.reset()
        return output_contents(self.root / "clean" / "attributes")

    def start(self, **popen) -> subprocess.Popen:
        """``dolma-sql tag`` of the faulted copy with this run's settings, in a process group of its own."""
        config = self.root / "tag.yaml"
        config.write_text(yaml.safe_dump({**self.config("faulted"), **self.settings}))
        return subprocess.Popen(
            [sys.executable, "-P", "-m", "dolma_sql", "-c", str(config), "tag"],
            cwd=self.root, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True, **popen,
        )  # fmt: skip

    def paused_workers(self) -> list[int]:
        return sorted(int(path.name.removeprefix("pid-")) for path in self.signals.glob("pid-*"))

    def let_go(self) -> None:
        (self.signals / "go").touch()

    def rerun(self) -> str:
        """Let the paused unit go and run the faulted copy again to its end: its standard error."""
        self.let_go()
        process = self.start()
        try:
            _, stderr = process.communicate(timeout=EVENT_SECONDS)
        finally:
            stopped(process)
        assert process.returncode == 0, stderr[-3000:]
        return stderr

    def reset(self) -> None:
        for path in self.signals.iterdir():
            path.unlink()

    def finished_units(self) -> int:
        return len(list((self.root / "faulted" / "attributes" / "p" / ".dolma-sql").glob("*.done")))

    def outputs(self) -> dict[str, bytes]:
        return output_contents(self.root / "faulted" / "attributes")


def stopped(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
