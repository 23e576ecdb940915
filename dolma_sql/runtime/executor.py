"""The executor interface, and the serial executor that runs units in the calling process."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from dolma_sql.errors import DolmaSqlError
from dolma_sql.runtime import progress

U = TypeVar("U")
Counters = dict[str, float]


def add_count(counters: Counters, key: str, value: float = 1) -> None:
    """Add ``value`` to the counter ``key`` (a unit's counters start empty)."""
    counters[key] = counters.get(key, 0) + value


class Executor(ABC):
    """Runs a function over units and yields ``(unit, counters or user error)`` as each finishes, in any order.

    A user error (:class:`~dolma_sql.errors.DolmaSqlError`) of one unit is yielded, not raised, so
    the other units still finish; any other exception is a bug and is raised. Used as a context
    manager, an executor keeps its workers for every ``map_unordered`` until it is left.
    """

    _said_short = False

    @abstractmethod
    def map_unordered(self, fn: Callable[[U], Counters], units: Sequence[U]) -> Iterator[tuple[U, Counters | DolmaSqlError]]: ...

    def prepare(self, module: str) -> None:
        """Say that units will run functions of ``module``, so that workers may import it ahead of them
        (before the executor is entered, which is when a pool starts its workers)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc_info) -> None:
        pass

    def say_once_if_short(self, units: int, slots: int, line: Callable[[], str]) -> None:
        """``line()`` on stderr, the first time a map has fewer ``units`` than the executor's ``slots`` (processes or
        CPUs) to run them: a command maps several times, and one line says it."""
        if units < slots and not self._said_short:
            self._said_short = True
            progress.console.print(line(), highlight=False)


class SerialExecutor(Executor):
    """Every unit in the calling process, one after the other: for debugging, and (``shuffle``) to show
    that a command's output does not depend on the order its units finish in."""

    def __init__(self, shuffle: int | None = None) -> None:
        self.shuffle = shuffle

    def map_unordered(self, fn, units):
        order = list(units)
        if self.shuffle is not None:
            random.Random(self.shuffle).shuffle(order)
        for unit in order:
            yield unit, run_catching_user_errors(fn, unit)


def run_catching_user_errors(fn: Callable[[U], Counters], unit: U) -> Counters | DolmaSqlError:
    try:
        return fn(unit)
    except DolmaSqlError as error:
        return error
