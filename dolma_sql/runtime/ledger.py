"""The one resume ledger: a record of each finished unit, stored beside its output.

A unit's record is a small file ``.dolma-sql/<output name>.<command>.<options>.done`` in its
output's folder, written with the commit protocol after the unit's outputs are committed, so it
works on an object store as on a local disk, and a rerun skips exactly the units whose outputs
are whole. ``<options>`` is a fingerprint of everything that shapes the outputs, so a rerun with
other options redoes the units instead of keeping outputs they did not produce. A unit killed
between its output's commit and its record is simply done again: units are deterministic. A run holds
its command's run lock in each ledger folder it writes (:mod:`.lock`), so two runs never share outputs.
"""

from __future__ import annotations

import contextlib
import hashlib
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import msgspec

from dolma_sql import storage
from dolma_sql.runtime.lock import LOCK_SUFFIX, RunLock
from dolma_sql.storage import urls
from dolma_sql.storage.commit import remove_temps

LEDGER_FOLDER = ".dolma-sql"
RECORD_SUFFIX = ".done"


def fingerprint(options: Any) -> str:
    """A short stable digest of ``options`` (structs, dicts, lists, scalars)."""
    encoded = msgspec.json.encode(msgspec.to_builtins(options), order="sorted")
    return hashlib.sha256(encoded).hexdigest()[:16]


class Ledger:
    """Which units of ``command`` with ``options`` are finished; a unit is known by its ``key``, its main output's URL.

    ``parts`` maps a key to the part of the options that shapes only its outputs (a mix stream's
    settings), so that editing one part redoes only the units of that part. ``resume`` says how a stopped run
    of the command is finished (tokens asks for ``--resume``).
    """

    def __init__(
        self, command: str, options: Any, *, parts: Mapping[str, Any] | None = None, rename: bool = True, resume: str = "rerun the same command"
    ) -> None:
        self.command = command
        self.resume = resume
        self.fingerprint = fingerprint(options)
        self._parts = parts or {}
        self._part_fingerprints: dict[int, str] = {}
        self._inputs: dict[str, str] = {}
        self.rename = rename  # False beside outputs on a volume that cannot rename (see storage.staged)
        self._locks: dict[str, RunLock] = {}
        weakref.finalize(self, _release, self._locks)  # at the latest when the ledger goes, or the process ends

    def fingerprint_of(self, key: str) -> str:
        """The fingerprint of what shapes ``key``'s outputs: the options, the part of them that is its own, and the versions
        of its inputs (when :meth:`track_inputs` was told them)."""
        options = self.fingerprint
        if key in self._parts:
            part = self._parts[key]
            if id(part) not in self._part_fingerprints:  # parts are shared by many keys
                self._part_fingerprints[id(part)] = fingerprint([self.fingerprint, part])
            options = self._part_fingerprints[id(part)]
        if key in self._inputs:
            return hashlib.sha256(f"{options}:{self._inputs[key]}".encode()).hexdigest()[:16]
        return options

    def track_inputs(self, inputs: Mapping[str, Sequence[str]]) -> None:
        """Make the records of each key depend on the files it is made from (``inputs``: key -> URLs), so that a rerun
        redoes an output whose inputs changed (edited, replaced, added to or removed from its unit, gone) instead of
        keeping it. One listing per folder of an object store; keys told before are not looked at again."""
        inputs = {key: urls_of_key for key, urls_of_key in inputs.items() if key not in self._inputs}
        found = urls.versions(url for urls_of_key in inputs.values() for url in urls_of_key)
        for key, urls_of_key in inputs.items():
            self._inputs[key] = fingerprint([[url, found[url]] for url in urls_of_key])

    def record_url(self, key: str) -> str:
        return urls.join(urls.parent(key), LEDGER_FOLDER, f"{urls.name(key)}.{self.command}.{self.fingerprint_of(key)}{RECORD_SUFFIX}")

    def claim(self, keys: Iterable[str]) -> None:
        """Take the command's run lock in the ledger folder of every key (see :mod:`.lock`), so that another run of
        the command on these outputs stops with an error naming this one. Writing a record claims its folder too;
        :meth:`release` (or the end of the run) lets go."""
        for folder in dict.fromkeys(urls.join(urls.parent(key), LEDGER_FOLDER) for key in keys):
            if folder not in self._locks:
                lock = RunLock(urls.join(folder, self.command + LOCK_SUFFIX), self.command)
                try:
                    lock.acquire()
                except BaseException:
                    self.release()
                    raise
                self._locks[folder] = lock

    def release(self) -> None:
        """Let go of the run locks this ledger claimed."""
        _release(self._locks)

    @contextlib.contextmanager
    def holding(self, keys: Iterable[str]) -> Iterator[None]:
        """Claim the run locks of ``keys`` for the block, and release every lock of the ledger after it."""
        self.claim(keys)
        try:
            yield
        finally:
            self.release()

    def finished(self, keys: Iterable[str]) -> set[str]:
        """The keys that have a record with these options and whose output is there (a record does not outlive an
        output deleted by hand); two listings per output folder."""
        keys = list(keys)
        return self._finished(keys, self._records_in_folders_of(keys))

    def _finished(self, keys: list[str], recorded: set[str]) -> set[str]:
        present: set[str] = set()
        for folder in dict.fromkeys(urls.parent(key) for key in keys):
            present.update(urls.join(folder, entry) for entry in urls.listdir(folder))
        return {key for key in keys if self.record_url(key) in recorded and key in present}

    def _records_in_folders_of(self, keys: list[str]) -> set[str]:
        recorded: set[str] = set()
        for folder in dict.fromkeys(urls.join(urls.parent(key), LEDGER_FOLDER) for key in keys):
            recorded.update(urls.join(folder, entry) for entry in urls.listdir(folder))
        return recorded

    def to_do(self, units: Sequence[Any], *, redo: bool = False) -> list[Any]:
        """The units that :meth:`finished` does not have (all of them with ``redo``). Their records are removed first
        (of other options, or of an output gone), since their outputs are about to be replaced: a later run with those
        options must not skip them."""
        keys = [unit.key for unit in units]
        recorded = self._records_in_folders_of(keys)
        finished = set() if redo else self._finished(keys, recorded)
        todo = [unit for unit in units if unit.key not in finished]
        replaced = {(urls.join(urls.parent(unit.key), LEDGER_FOLDER), urls.name(unit.key)) for unit in todo}
        for record in recorded:
            name, command, _ = _parse_record(urls.name(record))
            if command == self.command and (urls.parent(record), name) in replaced:
                urls.remove(record)
        return todo

    def record(self, key: str, counters: dict[str, float]) -> None:
        """Record that the unit writing ``key`` finished (after its outputs were committed)."""
        self.claim([key])
        record = msgspec.json.encode({"command": self.command, "output": key, "counters": counters})
        remove_temps(self.record_url(key))  # of a run killed while it wrote this record
        storage.write_bytes(self.record_url(key), record, rename=self.rename)

    def counters(self, key: str) -> dict[str, float] | None:
        """The counters recorded for ``key`` (``None`` without a record)."""
        try:
            return msgspec.json.decode(urls.read_bytes(self.record_url(key)))["counters"]
        except FileNotFoundError:
            return None

    def forget_other_options(self, keys: Iterable[str]) -> None:
        """Remove the records of ``keys`` made with other options (before their units run with these), so
        that a later run with those options does not skip outputs this run replaces."""
        keys = list(keys)
        self.claim(keys)
        fingerprints_by_folder: dict[str, dict[str, str]] = {}
        for key in keys:
            fingerprints_by_folder.setdefault(urls.join(urls.parent(key), LEDGER_FOLDER), {})[urls.name(key)] = self.fingerprint_of(key)
        for folder, fingerprints in fingerprints_by_folder.items():
            for entry in urls.listdir(folder):
                name, command, recorded_fingerprint = _parse_record(entry)
                if name in fingerprints and command == self.command and recorded_fingerprint != fingerprints[name]:
                    urls.remove(urls.join(folder, entry))

    def recorded_outputs(self, folder: str) -> dict[str, list[str]]:
        """The outputs in ``folder`` that runs of this command recorded as finished, with any options: each name with
        the URLs of its records."""
        ledger_folder = urls.join(folder, LEDGER_FOLDER)
        outputs: dict[str, list[str]] = {}
        for entry in urls.listdir(ledger_folder):
            name, command, _ = _parse_record(entry)
            if command == self.command:
                outputs.setdefault(name, []).append(urls.join(ledger_folder, entry))
        return outputs

    def forget(self, keys: Iterable[str]) -> None:
        """Remove the records of ``keys`` (before their units are done again)."""
        keys = list(keys)
        self.claim(keys)
        for key in keys:
            urls.remove(self.record_url(key))


def _parse_record(entry: str) -> tuple[str, str, str]:
    """``(output name, command, fingerprint)`` of a record's file name (empty strings for another file)."""
    if not entry.endswith(RECORD_SUFFIX):
        return "", "", ""
    rest, _, recorded_fingerprint = entry.removesuffix(RECORD_SUFFIX).rpartition(".")
    name, _, command = rest.rpartition(".")
    return name, command, recorded_fingerprint


def _release(locks: dict[str, RunLock]) -> None:
    while locks:
        locks.popitem()[1].release()
