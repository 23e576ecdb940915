"""Text extraction with a time limit per page.

Linearizers are C extensions (resiliparse) or lxml-heavy Python (trafilatura) that can spin for
minutes on hostile HTML, and a C call cannot be interrupted from inside its process. So pages go
to a separate extraction process (one per worker, kept across files), which answers in chunks and
shows on a shared board which page it is on since when; a page that runs past the limit gets that
process killed and restarted on the pages after it (and on those it had done but not reported),
and is rejected as ``timeout`` (``crashed`` if the process died on it, ``failed`` if the library
raised). With no limit the linearizer runs in the worker itself.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

import psutil

import dolma_sql

from dolma_sql.warc.board import Board
from dolma_sql.warc.linearizers import make_linearizer


@dataclass(frozen=True)
class Rejected:
    """A page without text: ``reason`` is ``timeout``, ``crashed`` or ``failed``; ``detail`` says more."""

    reason: str
    detail: str


class InProcessExtractor:
    """The linearizer in this process, unbounded."""

    def __init__(self, linearizer: str) -> None:
        self.linearize = make_linearizer(linearizer)

    def extract(self, pages: list[str]) -> list[str | Rejected]:
        results: list[str | Rejected] = []
        for html in pages:
            try:
                results.append(self.linearize(html))
            except Exception as error:
                results.append(Rejected("failed", f"{type(error).__name__}: {error}"))
        return results

    def close(self) -> None:
        pass


WALL_FACTOR = 10
"""A page is also stopped after this many times the limit in wall seconds, whatever its CPU time."""


class BoundedExtractor:
    """The linearizer in an extraction process, each page given at most ``time_limit`` CPU seconds."""

    WAKE_SECONDS = 0.1
    """How often the board is looked at while no result comes."""

    def __init__(self, linearizer: str, time_limit: float) -> None:
        self.linearizer = linearizer
        self.time_limit = time_limit
        self._process: subprocess.Popen | None = None
        self._requests: Connection | None = None
        self._results: Connection | None = None
        self._board: Board | None = None
        self._batches = 0

    def extract(self, pages: list[str]) -> list[str | Rejected]:
        results: list[str | Rejected | None] = [None] * len(pages)
        todo = list(range(len(pages)))
        while todo:
            done, failure = self._extract_until_failure([pages[i] for i in todo])
            for position, result in enumerate(done):
                results[todo[position]] = result
            if failure is None:
                break
            position, rejected = failure
            results[todo[position]] = rejected
            todo = todo[len(done):position] + todo[position + 1:]  # pages done but not yet reported are done again
        return results

    def _extract_until_failure(self, pages: list[str]) -> tuple[list[str | Rejected], tuple[int, Rejected] | None]:
        """The results of the first pages, and the page that ran past the limit or took the process down with it, if one did."""
        self._start()
        self._batches += 1
        try:
            self._requests.send((self._batches, pages))
        except OSError:  # died between batches (killed from outside): start again
            self.close()
            self._start()
            self._requests.send((self._batches, pages))
        results: list[str | Rejected] = []
        while len(results) < len(pages):
            try:
                if self._results.poll(min(self.time_limit, self.WAKE_SECONDS)):
                    results += [value if ok else Rejected("failed", value) for ok, value in self._results.recv()]
                    continue
            except (EOFError, OSError):
                code = self._process.wait() if self._process is not None else None
                failure = Rejected("crashed", f"the extraction process died (exit status {code})")
                return results, (self._current_page(len(results)), failure)
            batch, index, started, cpu_started = self._board.read()
            if batch == self._batches and index >= len(results) and self._past_limit(started, cpu_started):
                self.close()
                return results, (index, Rejected("timeout", f"extraction took more than {self.time_limit:g} CPU seconds"))
        return results, None

    def _past_limit(self, started: float, cpu_started: float) -> bool:
        """Whether the page has used more than the limit in CPU seconds (or ten times the limit in wall seconds:
        a page stuck without computing), so that a loaded machine does not time out pages that are not slow."""
        if time.monotonic() - started > WALL_FACTOR * self.time_limit:
            return True
        try:
            times = psutil.Process(self._process.pid).cpu_times()
        except psutil.Error:
            return False  # gone: the pipe says so next
        return times.user + times.system - cpu_started > self.time_limit

    def _current_page(self, reported: int) -> int:
        """The page the server was on when it died (the first one not reported if the board is stale)."""
        batch, index, _, _ = self._board.read()
        self.close()
        return index if batch == self._batches and index >= reported else reported

    def _start(self) -> None:
        if self._process is not None:
            return
        to_server_read, to_server_write = os.pipe()
        from_server_read, from_server_write = os.pipe()
        board_file = tempfile.TemporaryFile()
        board_file.truncate(Board.size())
        fds = (to_server_read, from_server_write, board_file.fileno())
        command = [sys.executable, "-m", "dolma_sql.warc.extraction_server", self.linearizer, *map(str, fds)]
        try:
            self._process = subprocess.Popen(command, pass_fds=fds, stdin=subprocess.DEVNULL, env=_same_package_environment())
            self._board = Board(board_file.fileno())
        finally:
            os.close(to_server_read)
            os.close(from_server_write)
            board_file.close()
        self._requests = Connection(to_server_write, readable=False)
        self._results = Connection(from_server_read, writable=False)
        try:  # its start-up is not a page's time
            self._results.recv()
        except EOFError:
            code = self._process.wait()
            self.close()
            raise RuntimeError(f"the {self.linearizer} extraction process did not start (exit status {code})") from None

    def close(self) -> None:
        """Stop the extraction process (killed: it may be stuck in a page)."""
        if self._process is None:
            return
        self._process.kill()
        self._process.wait()
        self._requests.close()
        self._results.close()
        self._board.close()
        self._process = self._requests = self._results = self._board = None


def _same_package_environment() -> dict[str, str]:
    """This environment, with this process's dolma_sql first on the path: the server runs the same code as its worker."""
    root = str(Path(dolma_sql.__file__).resolve().parent.parent)
    paths = [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


_EXTRACTORS: dict[tuple[str, float], InProcessExtractor | BoundedExtractor] = {}


def extractor(linearizer: str, time_limit: float) -> InProcessExtractor | BoundedExtractor:
    """This process's extractor for these settings, kept across the files it converts."""
    key = (linearizer, time_limit)
    if key not in _EXTRACTORS:
        _EXTRACTORS[key] = BoundedExtractor(linearizer, time_limit) if time_limit > 0 else InProcessExtractor(linearizer)
    return _EXTRACTORS[key]


@atexit.register
def close_extractors() -> None:
    """Stop this process's extraction processes (a run's end; the next page starts one again)."""
    for each in _EXTRACTORS.values():
        each.close()
