"""An interactive SQL session over the corpus views (``dolma-sql shell``).

Line editing and history come from the standard library's ``readline`` (history is kept in
``$DOLMA_SQL_HISTORY``, default ``~/.dolma_sql_history``). A statement may span several lines and
runs when a line ends with ``;``. A line starting with ``.`` and a letter is a shell command
(``.help``), also in the middle of an unfinished statement, which it leaves as it was. Ctrl-C
during a query asks DuckDB to stop it (a tagger function finishes its batch first).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import duckdb
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dolma_sql.errors import DolmaSqlError
from dolma_sql.query import execute, print_table
from dolma_sql.runtime.progress import new_console
from dolma_sql.views import Corpus

PROMPT = "dolma-sql> "
CONTINUATION = "      ...> "

COMMAND = re.compile(r"\s*\.[A-Za-z]")
"""A shell command: a dot and a letter (``.5`` on a line of its own stays SQL)."""

SPAN_LIST = re.compile(r'struct\("start" \w+, "end" \w+, score \w+\)\[\]')
"""How a span-list column's type reads in ``information_schema`` (lower-cased)."""

USAGE = {".timer": ".timer on|off", ".maxrows": ".maxrows N"}
"""What the commands that take an argument are told when they get a wrong one."""

HELP = """\
Type SQL (DuckDB dialect) ending with ';' — it may span several lines. Views:
  documents   id, text, source, added, created, version, metadata, …, file, row
  attributes  id, file, row, one column per attribute key (span lists are [{{start, end, score}}],
              [] when a row lacks the key; a key two sets write is <set>__<key>)
  spans       id, file, row, set, attribute, start, end, score (one row per span)
Span macros: score(x), max_score(x), span_count(x) of a span column or a JSON span list.
Shell commands (also in the middle of a statement, which stays as it was):
  .help            this text
  .views           the views and their columns
  .tables          the names of the views (and tables)
  .schema [VIEW]   the columns and types of every view, or of VIEW
  .timer on|off    print each statement's run time (now {timer})
  .maxrows N       rows shown per result (now {max_rows})
  .quit / .exit    leave (Ctrl-D works too; Ctrl-C clears the current statement, or stops a query)
SQL reads only the corpus files (widen with --allow-read PATH); statements that write (COPY,
CREATE, ATTACH, …) need `dolma-sql shell --allow-write`; settings, extensions and the network are off."""


def history_path() -> str:
    return os.environ.get("DOLMA_SQL_HISTORY") or os.path.join(os.path.expanduser("~"), ".dolma_sql_history")


@dataclass
class Shell:
    connection: duckdb.DuckDBPyConnection
    corpus: Corpus | None
    console: Console = field(default_factory=new_console)
    allow_write: bool = False
    max_rows: int = 40
    timer: bool = False

    def run(self) -> None:
        """Read, run and print statements until ``.quit`` or end of input."""
        readline = _readline()
        self.console.print("dolma-sql shell — [bold].help[/bold] for help, [bold].quit[/bold] to leave", highlight=False)
        buffer: list[str] = []
        try:
            while True:
                try:
                    line = input(CONTINUATION if buffer else PROMPT)
                except EOFError:
                    self.console.print()
                    return
                except KeyboardInterrupt:
                    self.console.print("^C")
                    buffer.clear()
                    continue
                if COMMAND.match(line):
                    if not self.command(line.strip()):
                        return
                    if buffer:
                        self.console.print("[dim](the unfinished statement is kept: end it with ';', or Ctrl-C to drop it)[/dim]", highlight=False)
                    continue
                if not buffer and not line.strip():
                    continue
                buffer.append(line)
                if line.rstrip().endswith(";"):
                    self.statement("\n".join(buffer))
                    buffer.clear()
        finally:
            if readline is not None:
                try:
                    readline.write_history_file(history_path())
                except OSError:
                    pass

    def statement(self, sql: str) -> None:
        """Run one (possibly multi-statement) input and print the last result, or the error."""
        started, used = time.perf_counter(), os.times()
        with self._interrupting_queries() as interrupted:
            try:
                relation = execute(self.connection, sql, corpus=self.corpus, allow_write=self.allow_write)
                if relation is not None:
                    print_table(self.connection, relation, self.console, self.corpus, self.max_rows, more_rows="raise .maxrows N")
            except (DolmaSqlError, duckdb.Error) as error:
                if interrupted:  # DuckDB's message for the stop, or a failure of what the stop cut short
                    self.console.print("interrupted")
                else:
                    self.console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False, markup=True)
        if self.timer:
            now = os.times()
            self.console.print(
                f"Run Time (s): real {time.perf_counter() - started:.3f} user {now.user - used.user:.6f} sys {now.system - used.system:.6f}",
                highlight=False,
            )

    @contextlib.contextmanager
    def _interrupting_queries(self) -> Iterator[list[bool]]:
        """While a statement runs, Ctrl-C asks DuckDB to stop the query; yields a list that is not empty once it was pressed.

        Python runs signal handlers in the main thread only between its own instructions, which a query
        running in DuckDB may not reach for a long time, and a KeyboardInterrupt raised inside a tagger
        function fails the query with that function's error. So the handler does nothing; the signal's
        wake-up byte reaches a thread that interrupts the connection at once."""
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        pressed: list[bool] = []
        finished = threading.Event()

        def watch() -> None:
            if os.read(read_end, 1):  # Ctrl-C (or the end of the pipe: the statement is over)
                pressed.append(True)
                while True:  # again and again: a query that starts later (after a tagger is loaded) stops too
                    self.connection.interrupt()
                    if finished.wait(0.05):
                        return

        watcher = threading.Thread(target=watch, name="dolma-sql-interrupt", daemon=True)
        watcher.start()
        previous_handler = signal.signal(signal.SIGINT, lambda signum, frame: None)
        previous_fd = signal.set_wakeup_fd(write_end)
        try:
            yield pressed
        finally:
            signal.set_wakeup_fd(previous_fd)
            signal.signal(signal.SIGINT, previous_handler)
            finished.set()
            os.close(write_end)  # the watcher reads the end of the pipe and stops
            watcher.join()
            os.close(read_end)

    def command(self, line: str) -> bool:
        """Run a dot command; False means leave the shell."""
        name, _, argument = line.partition(" ")
        argument = argument.strip()
        if name in (".quit", ".exit", ".q"):
            return False
        if name == ".help":
            self.console.print(HELP.format(max_rows=self.max_rows, timer="on" if self.timer else "off"), highlight=False, markup=False)
        elif name == ".views":
            self.views()
        elif name == ".tables":
            self.tables()
        elif name == ".schema":
            self.schema(argument or None)
        elif name == ".timer" and argument in ("on", "off"):
            self.timer = argument == "on"
        elif name == ".maxrows" and argument.isdigit():
            self.max_rows = int(argument)
        elif name in USAGE:
            self.console.print(f"[bold red]error:[/] usage: {USAGE[name]}", highlight=False, markup=True)
        else:
            self.console.print(f"[bold red]error:[/] unknown command {escape(line)!r}; .help lists the commands", highlight=False)
        return True

    def _columns(self, view: str | None = None) -> dict[str, list[tuple[str, str]]]:
        """The columns and types of each view and table (or of ``view``), by name."""
        where = "table_schema = 'main'" + (" AND table_name = ?" if view else "")
        rows = self.connection.execute(
            f"SELECT table_name, column_name, data_type FROM information_schema.columns WHERE {where} ORDER BY table_name, ordinal_position",
            [view] if view else [],
        ).fetchall()
        columns: dict[str, list[tuple[str, str]]] = {}
        for table, column, kind in rows:
            columns.setdefault(table, []).append((column, kind))
        return columns

    def views(self) -> None:
        """Each view's columns with their types; a span-list type is named ``spans`` and spelled out once, below."""
        table = Table(header_style="bold")
        table.add_column("view")
        table.add_column("columns")
        span_types: list[str] = []
        for name, columns in self._columns().items():
            cells = []
            for column, kind in columns:
                kind = kind.lower()
                if SPAN_LIST.fullmatch(kind):
                    if kind not in span_types:
                        span_types.append(kind)
                    kind = _span_label(span_types.index(kind))
                cells.append(f"{column} {kind}")
            table.add_row(name, escape(", ".join(cells)))
        self.console.print(table)
        for index, kind in enumerate(span_types):
            self.console.print(f"{_span_label(index)} = {escape(kind)} (a span list)", highlight=False)

    def tables(self) -> None:
        self.console.print("  ".join(self._columns()), highlight=False)

    def schema(self, view: str | None) -> None:
        """``CREATE VIEW`` with the columns and types (the views' own SQL names every file they read)."""
        found = self._columns(view)
        if view and not found:
            self.console.print(f"[bold red]error:[/] no view or table named {escape(view)!r}; .tables lists them", highlight=False)
            return
        kinds = dict(self.connection.execute("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'main'").fetchall())
        reserved = {keyword for (keyword,) in self.connection.execute("SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category = 'reserved'").fetchall()}
        for name, columns in found.items():
            kind = "VIEW" if kinds.get(name) == "VIEW" else "TABLE"
            body = ",\n".join(f"    {_identifier(column, reserved)} {type_}" for column, type_ in columns)
            self.console.print(f"CREATE {kind} {_identifier(name, reserved)} (\n{body}\n);", highlight=False, markup=False)


def _span_label(index: int) -> str:
    return "spans" if index == 0 else f"spans{index + 1}"


def _identifier(name: str, reserved: set[str]) -> str:
    """``name`` as SQL writes it: quoted unless a plain lower-case name that is no reserved word."""
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) and name not in reserved else '"' + name.replace('"', '""') + '"'


def _readline():
    """The readline module with history loaded (None where it does not exist, e.g. Windows)."""
    try:
        import readline
    except ImportError:  # pragma: no cover
        return None
    try:
        readline.read_history_file(history_path())
    except OSError:
        pass
    readline.set_history_length(1000)
    return readline
