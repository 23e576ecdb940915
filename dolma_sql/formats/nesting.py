"""Deeply nested JSON (``[[[[...]]]]``) in documents and attribute lines.

msgspec decodes and encodes nested values recursively, within Python's recursion limit (1,000 levels),
where DuckDB (which reads documents for tag, dedupe, tokens, sql and mix's stream query) has no limit.
So the rare line that goes deeper is decoded (and encoded) again on a thread whose stack and recursion
limit hold :data:`DEEPEST` levels, and a line deeper still is an error naming it (dolma stops at 128).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from dolma_sql.errors import InputError

T = TypeVar("T")

DEEPEST = 100_000
"""Levels of nesting the mixer reads."""

STACK_BYTES_PER_LEVEL = 1024
"""Thread stack a level of nesting may take: msgspec's decoder and encoder use about 500 bytes (measured)."""


FRAMES = 100
"""Room in the recursion limit for the frames of the thread below the decoder."""


class NestedTooDeep(Exception):
    """Value ``row`` of a batch is nested deeper than :data:`DEEPEST` levels."""

    def __init__(self, row: int) -> None:
        super().__init__(f"row {row} is nested more than {DEEPEST:,} levels deep")
        self.row = row


def on_deep_stack(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a thread with room for :data:`DEEPEST` levels of recursion (while the caller waits)."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, fn(*args)))
        except BaseException as error:  # re-raised in the caller
            outcome.append((False, error))

    limit = sys.getrecursionlimit()
    stack = threading.stack_size(DEEPEST * STACK_BYTES_PER_LEVEL)
    sys.setrecursionlimit(max(limit, DEEPEST + FRAMES))
    try:
        thread = threading.Thread(target=run, name="deeply-nested-json")
        thread.start()
        thread.join()
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(stack)
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value


def decode_each(values: Sequence, decode: Callable[[Any], T]) -> list[T]:
    """``decode`` every value (on a deep stack); one nested deeper than :data:`DEEPEST` is a :class:`NestedTooDeep`."""

    def each() -> list[T]:
        decoded = []
        for row, value in enumerate(values):
            try:
                decoded.append(decode(value))
            except RecursionError:
                raise NestedTooDeep(row) from None
        return decoded

    return on_deep_stack(each)


@contextlib.contextmanager
def naming_the_line(path: str, line_numbers: Sequence[int]) -> Iterator[None]:
    """A :class:`NestedTooDeep` of row ``r`` in the block becomes an :class:`InputError` naming ``path`` and line ``line_numbers[r]``."""
    try:
        yield
    except NestedTooDeep as error:
        raise too_deep(path, int(line_numbers[error.row])) from None


def too_deep(path: str, line: int) -> InputError:
    return InputError(
        f"JSON nested more than {DEEPEST:,} levels deep (arrays or objects within one another)",
        path=path,
        line=line,
        hint="flatten or drop the deeply nested field (dolma itself reads at most 128 levels)",
    )
