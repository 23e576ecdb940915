"""``dolma-sql shell``, driven through a pseudo-terminal the way a person types into it."""

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

    def expect(self, text: str, timeout: float = 60) -> str:
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

    def wait(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.2)
                if ready:
                    self.seen += os.read(self.fd, 65536)
            except OSError:
                time.sleep(0.1)
        raise AssertionError("shell did not exit")

    def kill(self) -> None:
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
