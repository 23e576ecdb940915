"""The board on which the extraction process shows the page it is on, and since when (wall clock and its own CPU time)."""

from __future__ import annotations

import mmap
import struct
import time


class Board:
    """The page the server is on: ``(batch number, index in the batch, time.monotonic() and the server's
    time.process_time() when it started)``, in a small shared file (CLOCK_MONOTONIC is one clock for every
    process of the machine)."""

    LAYOUT = struct.Struct("<qqdd")

    def __init__(self, fd: int) -> None:
        self.map = mmap.mmap(fd, self.LAYOUT.size)

    @classmethod
    def size(cls) -> int:
        return cls.LAYOUT.size

    def post(self, batch: int, index: int) -> None:
        self.LAYOUT.pack_into(self.map, 0, batch, index, time.monotonic(), time.process_time())

    def read(self) -> tuple[int, int, float, float]:
        return self.LAYOUT.unpack_from(self.map, 0)

    def close(self) -> None:
        self.map.close()
