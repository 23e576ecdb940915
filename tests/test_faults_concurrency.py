"""Two runs on one output folder (issue 17 item 6): the second stops with an error naming the first (pid,
host, start time) before it changes anything, a lock left by a run that is gone is taken over, and the
output is what one clean run writes, whichever run wins."""

from __future__ import annotations

import gzip
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from runtime_helpers import cli_command, no_temp_files, output_contents, run_cli

from dolma_sql.errors import OutputError
from dolma_sql.runtime import Ledger
from dolma_sql.runtime.lock import Holder, RunLock

EVENT_SECONDS = 600
"""How long a test waits for an event another process signals (a generous bound, not a timing assumption)."""

GATED_TAGGER = '''
import os, time
from pathlib import Path
from dolma_sql.tagging import Spans, TagBatch, tagger

@tagger("gated_length_v1", types=["length"])
def gated_length(batch: TagBatch):
    """Says it started, then waits for the test to open the gate."""
    gate = Path(os.environ["GATE"])
    (gate.parent / "started").touch()
    while not gate.exists():
        time.sleep(0.02)
    return {"length": Spans.document(batch.lengths, batch.lengths)}
'''


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + EVENT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def write_documents(root: Path, *, files: int, documents: int) -> None:
    for part in range(files):
        rows = [{"id": f"{part}-{n}", "text": f"document {n} of file {part} " * (1 + n % 7), "source": "t"} for n in range(documents)]
        path = root / "documents" / f"part-{part}.jsonl.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode(), mtime=0))


def every_file(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def lock_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.lock"))


LOCK_MESSAGE = re.compile(r"^error: (?P<lock>\S+\.dolma-sql/(?P<command>[a-z-]+)\.lock): another (?P=command) run is writing into this folder "
                          r"\(pid (?P<pid>\d+) on (?P<host>\S+), started (?P<started>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", re.M)  # fmt: skip


def test_a_second_run_stops_naming_the_first_and_the_first_writes_a_clean_output(tmp_path):
    """Run A holds the lock (its tagger waits at a gate); run B, started meanwhile, is refused; A then finishes."""
    (tmp_path / "gated.py").write_text(GATED_TAGGER)
    write_documents(tmp_path, files=3, documents=20)
    args = ["tag", "--documents", "documents/*.gz", "--taggers", "gated_length_v1", "--tagger_modules", "gated.py"]
    gates = tmp_path / "gates"
    gates.mkdir()
    first = subprocess.Popen(cli_command([*args, "--destination", "out"]), cwd=tmp_path, env={**os.environ, "GATE": str(gates / "open")},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        lock = tmp_path / "out" / ".dolma-sql" / "tag.lock"
        wait_for(lambda: (gates / "started").exists() and lock.exists() or first.poll() is not None, "the first run to start tagging")
        assert first.poll() is None, first.communicate()
        before = every_file(tmp_path / "out")
        second = run_cli([*args, "--destination", "out"], tmp_path, env={**os.environ, "GATE": str(gates / "open")})
        assert second.returncode == 1 and "Traceback" not in second.stderr, second.stderr
        refusal = LOCK_MESSAGE.search(second.stderr)
        assert refusal, second.stderr
        assert (int(refusal["pid"]), refusal["host"], refusal["command"]) == (first.pid, socket.gethostname(), "tag")
        assert refusal["lock"] == "out/.dolma-sql/tag.lock"
        assert "wait for it to end" in second.stderr
        assert every_file(tmp_path / "out") == before, "the refused run changed nothing, ledger included"
    finally:
        (gates / "open").touch()
        _, stderr = first.communicate(timeout=EVENT_SECONDS)
    assert first.returncode == 0, stderr

    clean = run_cli([*args, "--destination", "clean"], tmp_path, env={**os.environ, "GATE": str(gates / "open")})
    assert clean.returncode == 0, clean.stderr
    assert output_contents(tmp_path / "out") == output_contents(tmp_path / "clean")
    assert lock_files(tmp_path) == [] and no_temp_files(tmp_path) == []


def test_two_runs_started_together_end_with_a_clean_output(tmp_path):
    """Two ``mix`` runs started at once, several times: each either mixes (or finds the shards mixed) or is
    refused naming the other; the output is a clean run's every time."""
    write_documents(tmp_path, files=6, documents=3000)

    def recipe(output: str) -> str:
        stream = {"name": "s", "documents": ["documents/*.gz"], "output": {"path": output, "max_size_in_bytes": 1}}
        path = tmp_path / f"{output.replace('/', '-')}.json"
        path.write_text(json.dumps({"streams": [stream]}))
        return path.name

    clean = run_cli(["mix", recipe("clean")], tmp_path)
    assert clean.returncode == 0, clean.stderr
    expected = output_contents(tmp_path / "clean")
    refusals = 0
    for attempt in range(4):
        arguments = cli_command(["mix", recipe(f"together/{attempt}")])
        runs = [subprocess.Popen(arguments, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        results = [(run.pid, *run.communicate(timeout=EVENT_SECONDS), run.returncode) for run in runs]
        for (pid, _, stderr, returncode), (other, *_) in zip(results, reversed(results)):
            assert "Traceback" not in stderr, stderr
            if returncode:
                refusal = LOCK_MESSAGE.search(stderr)
                assert returncode == 1 and refusal and int(refusal["pid"]) == other, stderr
                refusals += 1
        assert any(returncode == 0 for *_, returncode in results)
        assert output_contents(tmp_path / "together" / str(attempt)) == expected
    assert lock_files(tmp_path) == [] and no_temp_files(tmp_path) == []
    print(f"{refusals} of 4 second runs refused")  # the others started after the first had finished


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_lock_left_by_a_killed_run_is_taken_over_and_another_hosts_is_not(tmp_path):
    write_documents(tmp_path, files=2, documents=10)
    lock = tmp_path / "out" / ".dolma-sql" / "tag.lock"
    lock.parent.mkdir(parents=True)
    args = ["tag", "--documents", "documents/*.gz", "--taggers", "char_length_v1", "--destination", "out"]

    lock.write_bytes(msgspec.json.encode(Holder("tag", 4242, "elsewhere.example", 1.7e9)))
    result = run_cli(args, tmp_path)
    assert result.returncode == 1 and "pid 4242 on elsewhere.example" in result.stderr and "delete this lock file" in result.stderr
    assert sorted(path.name for path in (tmp_path / "out").rglob("*")) == [".dolma-sql", "tag.lock"]

    lock.write_bytes(msgspec.json.encode(Holder("tag", dead_pid(), socket.gethostname(), time.time())))
    result = run_cli(args, tmp_path)
    assert result.returncode == 0, result.stderr
    assert lock_files(tmp_path) == [] and len(list((tmp_path / "out").glob("*.gz"))) == 2


def test_a_reused_pid_does_not_keep_a_lock(tmp_path):
    """The lock names the holder's process start time: another process that got the pid since does not hold it."""
    url = str(tmp_path / ".dolma-sql" / "mix.lock")
    (tmp_path / ".dolma-sql").mkdir()
    parent = Holder.this_process("mix")
    reused = msgspec.structs.replace(parent, pid=os.getppid(), process_start="1")  # a live pid, started at another time
    Path(url).write_bytes(msgspec.json.encode(reused))
    lock = RunLock(url, "mix")
    lock.acquire()
    assert msgspec.json.decode(Path(url).read_bytes(), type=Holder).pid == os.getpid()
    lock.release()
    assert not Path(url).exists()


def test_a_live_process_keeps_its_lock(tmp_path):
    url = str(tmp_path / "mix.lock")
    holder = msgspec.structs.replace(Holder.this_process("mix"), pid=os.getppid(), process_start=None)
    Path(url).write_bytes(msgspec.json.encode(holder))
    with pytest.raises(OutputError, match=f"another mix run is writing into this folder \\(pid {os.getppid()} on ") as error:
        RunLock(url, "mix").acquire()
    assert error.value.path == url
    assert Path(url).read_bytes() == msgspec.json.encode(holder)


def test_a_process_shares_its_own_locks_and_a_failed_run_leaves_no_ledger_folder(tmp_path):
    """Ledgers of one process share a lock (runs of a process follow one another); the folder a lock made goes with it."""
    key = str(tmp_path / "out" / "part-0.jsonl.gz")
    first, second = Ledger("mix", {"a": 1}), Ledger("mix", {"a": 2})
    first.claim([key])
    second.claim([key])
    first.release()
    assert lock_files(tmp_path), "still held by the second ledger"
    second.release()
    assert lock_files(tmp_path) == [] and not (tmp_path / "out" / ".dolma-sql").exists()


def test_a_ledger_claims_its_folders_when_it_writes_and_lets_go_when_it_goes(tmp_path):
    key = str(tmp_path / "out" / "part-0.jsonl.gz")
    ledger = Ledger("tag", {})
    ledger.record(key, {"documents": 1})
    assert [path.name for path in lock_files(tmp_path)] == ["tag.lock"]
    del ledger
    assert lock_files(tmp_path) == []


@pytest.mark.parametrize("where", ["memory", "s3"])
def test_locks_on_an_object_store_are_conditional_puts(tmp_path, request, where):
    """A lock on ``memory://`` or S3 (SeaweedFS, ``If-None-Match``): a second claim is refused, a release removes it."""
    if where == "s3":
        root = f"s3://{request.getfixturevalue('s3_server').new_bucket()}/out"
    else:
        root = f"memory://locks-{os.getpid()}-{time.monotonic_ns()}/out"
    url = f"{root}/.dolma-sql/mix.lock"
    from dolma_sql.storage import commit, urls

    holder = msgspec.json.encode(msgspec.structs.replace(Holder.this_process("mix"), pid=os.getppid(), process_start=None))
    commit.create_new(url, holder)
    with pytest.raises(FileExistsError):
        commit.create_new(url, b"another claim")
    with pytest.raises(OutputError, match="another mix run"):
        RunLock(url, "mix").acquire()
    assert not commit.remove_claim(url, b"another claim") and urls.read_bytes(url) == holder
    assert commit.remove_claim(url, holder) and not urls.exists(url)
    lock = RunLock(url, "mix")
    lock.acquire()
    lock.release()
    assert not urls.exists(url)


def test_an_unreadable_lock_says_so_and_how_to_clear_it(tmp_path):
    url = str(tmp_path / "tag.lock")
    Path(url).write_bytes(b"")
    with pytest.raises(OutputError, match="the run lock is not one dolma-sql wrote") as error:
        RunLock(url, "tag").acquire()
    assert "delete this lock file" in error.value.hint and Path(url).read_bytes() == b""
