"""Run locks: one run of a command at a time writes into an output folder.

A run claims ``<folder>/.dolma-sql/<command>.lock`` in each output folder its ledger touches (the file
appears whole or not at all: :func:`dolma_sql.storage.commit.create_new`, a conditional put on an
object store), naming its process, host and start time, and removes it when it ends. A second run of
the command on that folder finds the lock and stops with an error naming the first, before it changes
anything. A lock whose process is gone (on this host: the pid no longer runs, or runs another program)
is taken over, so a killed run never blocks the next; another host's lock cannot be checked, and the
error says to delete it if that run is gone. A process shares its own locks: its runs follow one another.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

import msgspec

from dolma_sql.errors import OutputError
from dolma_sql.storage import commit, urls

LOCK_SUFFIX = ".lock"

CLAIM_ATTEMPTS = 20
"""Tries to claim a lock that is released or taken over while this run looks at it, before giving up."""


class Holder(msgspec.Struct, frozen=True):
    """The run that holds a lock: what names it to the user, and what tells whether it still runs."""

    command: str
    pid: int
    host: str
    started: float
    process_start: str | None = None
    """The kernel's start time of ``pid`` (Linux), which tells a reused pid apart."""

    @classmethod
    def this_process(cls, command: str) -> Holder:
        return cls(command, os.getpid(), socket.gethostname(), time.time(), _process_start(os.getpid()))

    def describe(self) -> str:
        started = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(self.started))
        return f"pid {self.pid} on {self.host}, started {started}"

    def is_this_process(self) -> bool:
        return self.host == socket.gethostname() and self.pid == os.getpid() and self.process_start == _process_start(self.pid)

    def is_gone(self) -> bool:
        """Whether the process has ended (known on this host only)."""
        return self.host == socket.gethostname() and not _running(self.pid, self.process_start)


@dataclass
class _Held:
    content: bytes
    holders: int = 1
    made_folders: tuple[str, ...] = ()
    """The local folders the lock made, deepest first (its ledger folder, perhaps the output folder above it): each
    goes with the lock when it is empty, so a failed run leaves no trace."""


_HELD: dict[str, _Held] = {}
"""The locks this process holds, by URL."""


class RunLock:
    """The lock of ``command`` at ``url``: :meth:`acquire` it or fail naming the run that holds it; :meth:`release` it."""

    def __init__(self, url: str, command: str) -> None:
        self.url = url
        self.command = command

    def acquire(self) -> None:
        held = _HELD.get(self.url)
        if held is not None:
            held.holders += 1
            return
        mine = msgspec.json.encode(Holder.this_process(self.command))
        folder = urls.parent(self.url)
        makes_folders = tuple(commit.missing_folders(folder))
        unreadable = False
        for _ in range(CLAIM_ATTEMPTS):
            try:
                commit.create_new(self.url, mine)
                _HELD[self.url] = _Held(mine, made_folders=makes_folders)
                commit.remove_temps(self.url)  # of runs killed while they claimed or released it
                return
            except FileExistsError:
                pass
            except FileNotFoundError:  # the folder went with a lock released meanwhile
                continue
            try:
                existing = urls.read_bytes(self.url)
            except FileNotFoundError:  # released meanwhile
                continue
            holder = _decode(existing)
            unreadable = holder is None
            if holder is None:  # being written (a filesystem without hard links), or damaged
                time.sleep(0.01)
                continue
            if holder.is_this_process():  # left by this process (a run whose ledger was not released)
                _HELD[self.url] = _Held(existing)
                return
            if holder.is_gone():
                commit.remove_claim(self.url, existing)
                continue
            raise OutputError(
                f"another {holder.command} run is writing into this folder ({holder.describe()})",
                path=self.url,
                hint="wait for it to end, then rerun (what it finished is skipped); if that run is gone "
                "(it ran on another host), delete this lock file",
            )
        if unreadable:
            raise OutputError(
                "the run lock is not one dolma-sql wrote (or it is damaged), so which run holds it is unknown",
                path=self.url,
                hint="if no run is writing into this folder, delete this lock file and rerun",
            )
        raise OutputError("cannot claim the run lock: other runs keep taking it", path=self.url, hint="rerun when they are done")

    def release(self) -> None:
        held = _HELD.get(self.url)
        if held is None:
            return
        held.holders -= 1
        if held.holders:
            return
        del _HELD[self.url]
        commit.remove_claim(self.url, held.content)
        commit.remove_empty_folders(held.made_folders)


def _decode(data: bytes) -> Holder | None:
    try:
        return msgspec.json.decode(data, type=Holder)
    except msgspec.DecodeError:
        return None


def _process_start(pid: int) -> str | None:
    """Field 22 of ``/proc/<pid>/stat`` (the start time in clock ticks since boot), ``None`` off Linux."""
    stat = _stat(pid)
    return stat[19] if stat is not None and len(stat) > 19 else None


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state first), ``None`` when unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return None


def _running(pid: int, process_start: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it runs
        pass
    stat = _stat(pid)
    if stat is None:
        return True  # no /proc: the pid runs, whatever it is
    return stat[0] != "Z" and (process_start is None or stat[19] == process_start)
