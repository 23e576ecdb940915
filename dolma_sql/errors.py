"""User-facing errors.

Every error a user can cause says where (file and line, or the config path such as
``streams[0].filter.exclude[2]``), what was expected, and how to fix it. The CLI prints
these without a traceback and exits non-zero; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class DolmaSqlError(Exception):
    """An error caused by input, config or environment, not by a bug in dolma-sql."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.hint = hint

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        text = f"{where}{self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __reduce__(self):  # keep keyword fields across process boundaries
        return (_rebuild, (type(self), self.message, self.path, self.line, self.hint))


def _rebuild(cls, message, path, line, hint):
    return cls(message, path=path, line=line, hint=hint)


class ConfigError(DolmaSqlError):
    """A config value is missing, unknown or invalid; ``path`` is the config path of the field."""


class InputError(DolmaSqlError):
    """A data file is malformed or inconsistent; ``path``/``line`` point at it."""


class OutputError(DolmaSqlError):
    """An output cannot be written (disk full, no permission, read-only); ``path`` is the output."""


class WorkerDiedError(DolmaSqlError):
    """A worker process was killed (a signal, the out-of-memory killer) before its unit finished; a rerun resumes."""


class CompileError(DolmaSqlError):
    """A filter or span expression cannot be parsed or is not supported.

    ``position`` is the 0-based offset into ``expression`` where the problem was found.
    """

    def __init__(self, message: str, *, expression: str, position: int | None = None, **kwargs) -> None:
        self.expression = expression
        self.position = position
        if position is not None:
            caret = " " * position + "^"
            message = f"{message}\n    {expression}\n    {caret}"
        else:
            message = f"{message}\n    {expression}"
        super().__init__(message, **kwargs)

    def __reduce__(self):
        return (CompileError._restore, (self.message, self.expression, self.path, self.hint))

    @staticmethod
    def _restore(message, expression, path, hint):
        error = CompileError.__new__(CompileError)
        DolmaSqlError.__init__(error, message, path=path, hint=hint)
        error.expression = expression
        error.position = None
        return error


def install_hint(extra: str, what: str = "") -> str:
    """How to install an optional extra: dolma-sql is installed from its checkout, not from an index."""
    return f'pip install ".[{extra}]" in the dolma-sql checkout' + (f" ({what})" if what else "")


def raised_at(error: BaseException) -> str:
    """``file:line`` where the user's code (a plugin, a tagger module) raised ``error``: a syntax error's own place, else
    the innermost frame that is neither dolma-sql's nor the import machinery's."""
    import os
    import traceback

    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}"
    ours = os.path.dirname(os.path.abspath(__file__))
    frames = traceback.extract_tb(error.__traceback__)
    theirs = [frame for frame in frames if not frame.filename.startswith((ours, "<"))]
    frame = (theirs or frames)[-1]
    return f"{frame.filename}:{frame.lineno}"

