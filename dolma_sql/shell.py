"""An interactive SQL session over the corpus views (``dolma-sql shell``).

Line editing and history come from the standard library's ``readline`` (history is kept in
``$DOLMA_SQL_HISTORY``, default ``~/.dolma_sql_history``). A statement may span several lines and
runs when a line ends with ``;``. Lines starting with ``.`` are shell commands (``.help``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import duckdb
from rich.console import Console
from rich.table import Table

from dolma_sql.errors import DolmaSqlError
from dolma_sql.query import execute, print_table
from dolma_sql.views import Corpus

PROMPT = "dolma-sql> "
CONTINUATION = "      ...> "

HELP = """\
Type SQL (DuckDB dialect) ending with ';' — it may span several lines. Views:
  documents   id, text, source, added, created, version, metadata, …, file, row
  attributes  id, file, row, one column per attribute key (span lists are [{{start, end, score}}],
              [] when a row lacks the key; a key two sets write is <set>__<key>)
  spans       id, file, row, set, attribute, start, end, score (one row per span)
Span macros: score(x), max_score(x), span_count(x) of a span column or a JSON span list.
Shell commands:
  .help            this text
  .views           the views and their columns
  .maxrows N       rows shown per result (now {max_rows})
  .quit / .exit    leave (Ctrl-D works too; Ctrl-C clears the current statement)
SQL reads only the corpus files (widen with --allow-read PATH); statements that write (COPY,
CREATE, ATTACH, …) need `dolma-sql shell --allow-write`; settings, extensions and the network are off."""


def history_path() -> str:
    return os.environ.get("DOLMA_SQL_HISTORY") or os.path.join(os.path.expanduser("~"), ".dolma_sql_history")


@dataclass
class Shell:
    connection: duckdb.DuckDBPyConnection
    corpus: Corpus | None
    console: Console = field(default_factory=Console)
    allow_write: bool = False
    max_rows: int = 40

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
                if not buffer and line.strip().startswith("."):
                    if not self.command(line.strip()):
                        return
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
        try:
            relation = execute(self.connection, sql, corpus=self.corpus, allow_write=self.allow_write)
            if relation is not None:
                print_table(self.connection, relation, self.console, self.corpus, self.max_rows)
        except DolmaSqlError as error:
            self.console.print(f"[bold red]error:[/] {error}", highlight=False, markup=True)
        except KeyboardInterrupt:
            self.console.print("interrupted")

    def command(self, line: str) -> bool:
        """Run a dot command; False means leave the shell."""
        name, _, argument = line.partition(" ")
        if name in (".quit", ".exit", ".q"):
            return False
        if name == ".help":
            self.console.print(HELP.format(max_rows=self.max_rows), highlight=False, markup=False)
        elif name == ".views":
            self.views()
        elif name == ".maxrows" and argument.strip().isdigit():
            self.max_rows = int(argument)
        else:
            self.console.print(f"[bold red]error:[/] unknown command {line!r}; .help lists the commands", highlight=False)
        return True

    def views(self) -> None:
        table = Table(header_style="bold")
        table.add_column("view")
        table.add_column("columns")
        rows = self.connection.sql(
            "SELECT table_name, string_agg(column_name || ' ' || lower(data_type), ', ' ORDER BY ordinal_position) "
            "FROM information_schema.columns WHERE table_schema = 'main' GROUP BY table_name ORDER BY table_name"
        ).fetchall()
        for name, columns in rows:
            table.add_row(name, columns)
        self.console.print(table)


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
