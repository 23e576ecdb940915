"""The extraction process: runs a linearizer over the pages it is sent, one result per page as each finishes.

Started by :mod:`.extraction` with two pipe descriptors; it exits when its parent's pipe closes
and dies with its parent (a pathological page must not outlive the worker that gave up on it).
"""

from __future__ import annotations

import ctypes
import signal
import sys
from multiprocessing.connection import Connection

from dolma_sql.warc.linearizers import make_linearizer

PR_SET_PDEATHSIG = 1


def serve(name: str, read_fd: int, write_fd: int) -> None:
    """Answer each batch of pages with ``(index, True, text)`` or ``(index, False, error)`` per page."""
    linearize = make_linearizer(name)
    requests, results = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    results.send("ready")
    while True:
        try:
            pages = requests.recv()
        except EOFError:
            return
        for index, html in enumerate(pages):
            try:
                results.send((index, True, linearize(html)))
            except Exception as error:  # a page the library cannot handle is a rejected page, not a dead server
                results.send((index, False, f"{type(error).__name__}: {error}"))


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the closed pipe still ends the server between pages
        pass


if __name__ == "__main__":
    _die_with_parent()
    serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
