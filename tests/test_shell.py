"""``dolma-sql shell``, driven through a pseudo-terminal the way a person types into it.

Every wait is for an event (text on the terminal, CPU time spent), with deadlines generous enough
for a busy machine (``DEADLINE``); none relies on the machine being idle."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")

DEADLINE = 120
"""Seconds any one wait may take (start-up, a query, leaving)."""

WAITING_FOR_A_KEY = {"7", "23", "270", "271", "72", "73"}
"""System calls a shell waiting for a key is blocked in (``/proc/PID/syscall``): poll, select, pselect6 and ppoll
on x86-64; pselect6 and ppoll on arm64."""


class Terminal:
    """A child process on a pseudo-terminal: ``send`` keystrokes, ``expect`` text (with a timeout)."""

    def __init__(self, args: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the program
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-P", "-m", "dolma_sql", *args], env)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        self.seen = b""
        self.position = 0

    def expect(self, text: str, timeout: float = DEADLINE) -> str:
        """Wait until ``text`` appears after what earlier calls consumed; returns the output up to it."""
        needle = text.encode()
        deadline = time.monotonic() + timeout
        while True:
            clean = ANSI.sub(b"", self.seen)
            found = clean.find(needle, self.position)
            if found >= 0:
                chunk = clean[self.position : found + len(needle)]
                self.position = found + len(needle)
                return chunk.decode(errors="replace")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {text!r}; output so far:\n{clean[self.position:].decode(errors='replace')}")
            ready, _, _ = select.select([self.fd], [], [], min(remaining, 0.5))
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:  # the child closed the terminal
                    data = b""
                if not data:
                    raise AssertionError(f"shell exited while waiting for {text!r}; output:\n{clean.decode(errors='replace')}")
                self.seen += data

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_for_a_key(self, timeout: float = DEADLINE) -> None:
        """Wait until the shell is blocked waiting for a key. CPython's readline looks at a pending signal only
        when that wait is interrupted, so a Ctrl-C that lands while the prompt is still being set up is seen
        only after the next key."""
        deadline = time.monotonic() + timeout
        while Path(f"/proc/{self.pid}/syscall").read_text().split()[0] not in WAITING_FOR_A_KEY:
            assert time.monotonic() < deadline, "the shell never waited for a key"
            time.sleep(0.05)

    def cpu_seconds(self) -> float:
        """CPU time the shell has used so far (all its threads)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait(self, timeout: float = DEADLINE) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                self.pid = None  # reaped: its number may belong to another process now
                return os.waitstatus_to_exitcode(status)
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.2)
                if ready:
                    self.seen += os.read(self.fd, 65536)
            except OSError:
                time.sleep(0.1)
        raise AssertionError("shell did not exit")

    def kill(self) -> None:
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


@pytest.fixture()
def terminal_env(tmp_path) -> dict[str, str]:
    return {
        **os.environ,
        "TERM": "xterm",
        "NO_COLOR": "1",
        "HOME": str(tmp_path),
        "DOLMA_SQL_HISTORY": str(tmp_path / "history"),
        "COLUMNS": "160",
    }


def test_shell_in_a_terminal_edits_lines_keeps_history_and_prints_tables(conformance, tmp_path, terminal_env):
    provided = conformance / "tests/data/provided"
    shell = Terminal(["shell", "--documents", "documents/*.gz"], cwd=provided, env=terminal_env)
    try:
        shell.expect("dolma-sql> ")
        shell.send("SELECT count(*) AS n,\r")  # a statement over two lines
        shell.expect("...> ")
        shell.send("count(DISTINCT source) AS sources FROM documents;\r")
        table = shell.expect("dolma-sql> ")
        assert re.search(r"│\s*10\s*│\s*1\s*│", table), table

        shell.send("SELECT 4x\x7f2 AS answer;\r")  # backspace erases the typo
        assert re.search(r"│\s*42\s*│", shell.expect("dolma-sql> "))
        shell.send("\x1b[A\r")  # up arrow recalls the last statement
        recalled = shell.expect("dolma-sql> ")
        assert "answer" in recalled and re.search(r"│\s*42\s*│", recalled)

        shell.send("SELECT attribute, count(*) AS spans FROM spans GROUP BY ALL ORDER BY 1;\r")
        spans = shell.expect("dolma-sql> ")
        assert "bff_duplicate_paragraph_spans" in spans and "sample__random_number_v1__random" in spans

        shell.send(".views\r")
        views = shell.expect("dolma-sql> ")
        assert all(name in views for name in ("attributes", "documents", "spans", "toxicity double"))
        shell.send(".help\r")
        assert ".views" in shell.expect("dolma-sql> ")

        shell.send("COPY (SELECT 1) TO 'written.csv';\r")
        assert "refused" in shell.expect("dolma-sql> ")
        shell.send("SELECT nope FROM documents;\r")
        error = shell.expect("dolma-sql> ")
        assert "Binder Error" in error and "Traceback" not in error

        shell.send("SELECT 1\r")
        shell.expect("...> ")
        shell.wait_for_a_key()
        shell.send("\x03")  # Ctrl-C abandons the unfinished statement
        shell.expect("dolma-sql> ")
        shell.send(".quit\r")
        assert shell.wait() == 0
    finally:
        shell.kill()
    assert not (provided / "written.csv").exists()
    history = (tmp_path / "history").read_text()
    assert "SELECT 4" in history and "answer" in history


def test_shell_database_is_saved_and_reopened(conformance, tmp_path):
    provided = conformance / "tests/data/provided"
    database = tmp_path / "corpus.duckdb"
    env = {**os.environ, "NO_COLOR": "1", "DOLMA_SQL_HISTORY": str(tmp_path / "history"), "COLUMNS": "160"}
    first = subprocess.run(
        [sys.executable, "-P", "-m", "dolma_sql", "shell", "-d", "documents/*.gz", "--database", str(database)],
        input=".quit\n", cwd=provided, capture_output=True, text=True, env=env, timeout=120,
    )
    assert first.returncode == 0, first.stderr
    again = subprocess.run(
        [sys.executable, "-P", "-m", "dolma_sql", "shell", "--database", str(database)],
        input="SELECT count(*) AS documents FROM documents;\nSELECT max(toxicity) AS top FROM attributes;\n",
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert re.search(r"│\s*10\s*│", again.stdout) and re.search(r"│\s*1\.0\s*│", again.stdout), again.stdout


@pytest.fixture()
def shell(conformance, terminal_env):
    """The shell over the conformance corpus, at its first prompt; killed at the end whatever happened."""
    terminal = Terminal(["shell", "--documents", "documents/*.gz"], cwd=conformance / "tests/data/provided", env=terminal_env)
    try:
        terminal.expect("dolma-sql> ")
        yield terminal
    finally:
        terminal.kill()


def test_tables_schema_timer_and_views_as_in_duckdbs_shell(shell):
    shell.send(".tables\r")
    assert "attributes  documents  spans" in shell.expect("dolma-sql> ")

    shell.send(".schema documents\r")
    schema = shell.expect("dolma-sql> ")
    assert "CREATE VIEW documents (" in schema and "    id VARCHAR," in schema and "    metadata JSON," in schema
    assert "CREATE VIEW spans" not in schema and "read_ndjson" not in schema
    shell.send(".schema\r")
    every = shell.expect("dolma-sql> ")
    assert all(f"CREATE VIEW {name} (" in every for name in ("attributes", "documents", "spans"))
    assert '    bff_duplicate_paragraph_spans STRUCT("start" BIGINT, "end" BIGINT, score DOUBLE)[],' in every
    shell.send(".schema nothing\r")
    assert "no view or table named 'nothing'" in shell.expect("dolma-sql> ")

    shell.send(".timer on\r")
    shell.expect("dolma-sql> ")
    shell.send("SELECT 42 AS answer;\r")
    timed = shell.expect("dolma-sql> ")
    assert re.search(r"│\s*42\s*│", timed) and re.search(r"Run Time \(s\): real \d+\.\d{3} user \d+\.\d+ sys \d+\.\d+", timed)
    shell.send(".timer off\r")
    shell.expect("dolma-sql> ")
    shell.send("SELECT 43 AS answer;\r")
    assert "Run Time" not in shell.expect("dolma-sql> ")
    shell.send(".timer sometimes\r")
    assert ".timer on|off" in shell.expect("dolma-sql> ")

    shell.send(".maxrows 2\r")
    shell.expect("dolma-sql> ")
    shell.send("SELECT * FROM range(3);\r")
    assert "more rows not shown; raise .maxrows N" in " ".join(shell.expect("dolma-sql> ").split())

    shell.send(".views\r")
    views = shell.expect("dolma-sql> ")
    assert "bff_duplicate_paragraph_spans spans" in views and "sample__random_number_v1__random spans" in views
    assert views.count("struct(") == 1 and 'spans = struct("start" bigint, "end" bigint, score double)[]' in views

    shell.send("SELECT count(*) FROM read_text('/etc/hostname');\r")  # the commands changed nothing of the sandbox
    assert "Permission Error" in shell.expect("dolma-sql> ")
    shell.send(".quit\r")
    assert shell.wait() == 0


def test_a_dot_command_after_an_unterminated_statement_is_a_command(shell):
    shell.send("SELECT 42 AS answer\r")
    shell.expect("...> ")
    shell.send(".tables\r")
    listed = shell.expect("...> ")  # the command ran; the statement is still open
    assert "attributes  documents  spans" in listed and "unfinished statement is kept" in listed
    shell.send(";\r")
    result = shell.expect("dolma-sql> ")
    assert re.search(r"│\s*42\s*│", result) and "error" not in result.lower()

    shell.send("SELECT 1\r")
    shell.expect("...> ")
    shell.send(".quit\r")  # leaves, also in the middle of a statement
    assert shell.wait() == 0


def test_ctrl_c_stops_a_query_that_runs_a_tagger_with_one_line(shell):
    """A tagger is Python running inside the query: Ctrl-C must stop DuckDB's query, not fail the tagger."""
    # ten documents, each tagged a million times with a different suffix: hours of work if not stopped
    shell.send("SELECT max(length(gopher_v1(text || range::VARCHAR)::VARCHAR)) AS m FROM documents, range(1000000);\r")
    shell.expect("range(1000000);")  # read: the line is the shell's, not the terminal's any more
    started = shell.cpu_seconds()
    deadline = time.monotonic() + DEADLINE
    while shell.cpu_seconds() < started + 3:  # the tagger is running (loading it takes less)
        assert time.monotonic() < deadline, "the query did not start"
        time.sleep(0.2)
    shell.send("\x03")
    stopped = shell.expect("dolma-sql> ")
    lines = [line for line in stopped.replace("^C", "").splitlines()[:-1] if line.strip()]  # up to the prompt
    assert lines == ["interrupted"], stopped
    shell.send("SELECT 7 AS still_there;\r")  # the connection goes on
    assert re.search(r"│\s*7\s*│", shell.expect("dolma-sql> "))
    shell.send(".quit\r")
    assert shell.wait() == 0
