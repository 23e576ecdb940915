"""The extraction process: runs a linearizer over the batches of pages it is sent.

It answers in chunks of pages (a message per page would cost as much as a small page's
extraction), and says on a shared board which page it is on and since when, so that its parent
can tell a page that runs past the time limit without hearing from it. It is started by
:mod:`.extraction` with two pipe descriptors and the board's file; it exits when its parent's pipe
closes and dies with its parent (a pathological page must not outlive the worker that gave up on it).
"""

from __future__ import annotations

import ctypes
import signal
import sys
import time
from multiprocessing.connection import Connection

from dolma_sql.warc.board import Board
from dolma_sql.warc.linearizers import make_linearizer

PR_SET_PDEATHSIG = 1
CHUNK_PAGES = 64
"""Results sent together at most (fewer when ``CHUNK_SECONDS`` have passed)."""
CHUNK_SECONDS = 0.05


def serve(name: str, read_fd: int, write_fd: int, board_fd: int) -> None:
    """Answer each ``(batch number, pages)`` with chunks of ``(True, text)`` or ``(False, error)``, one per page in order."""
    linearize = make_linearizer(name)
    requests, results = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    board = Board(board_fd)
    results.send("ready")
    while True:
        try:
            batch, pages = requests.recv()
        except EOFError:
            return
        chunk: list[tuple[bool, str]] = []
        sent = time.monotonic()
        for index, html in enumerate(pages):
            board.post(batch, index)
            try:
                chunk.append((True, linearize(html)))
            except Exception as error:  # a page the library cannot handle is a rejected page, not a dead server
                chunk.append((False, f"{type(error).__name__}: {error}"))
            if len(chunk) >= CHUNK_PAGES or time.monotonic() - sent > CHUNK_SECONDS:
                results.send(chunk)
                chunk, sent = [], time.monotonic()
        results.send(chunk)


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the closed pipe still ends the server between pages
        pass


if __name__ == "__main__":
    _die_with_parent()
    serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
