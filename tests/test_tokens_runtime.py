"""``dolma-sql tokens`` on the runtime and storage layers: any executor, any filesystem, killed and resumed."""

from __future__ import annotations

import csv
import gzip
import io
import socket
import uuid
from pathlib import Path

import fsspec
import msgspec
import pytest

from dolma_sql.config import load_config
from dolma_sql.config.tokens import TokensConfig
from dolma_sql.errors import ConfigError
from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.runtime.lock import Holder
from dolma_sql.tokenizer import run
from runtime_helpers import kill_at_random_points, no_temp_files, output_contents, run_cli, timed_run
from tokens_helpers import GPT_NEO, LLAMA, TOKENIZERS, tokens, write_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("tokens-runtime-corpus")) / "documents"


def part_files(folder: Path) -> dict[str, bytes]:
    """The raw bytes of every memmap and index of a destination."""
    return {path.name: path.read_bytes() for path in sorted(folder.glob("part-*"))}


def groups_args(documents: str, destination: str) -> list[str]:
    """One group per file (five units), small shuffle batches, two memmaps in some groups."""
    return ["--documents", documents, *GPT_NEO, "--files_per_process", "1", "--batch_size", "50", "--max_size", "40000", "--destination", destination]


def test_serial_in_any_order_equals_the_process_pool(corpus, tmp_path):
    """Units finishing in any order (shuffled serial runs) write the bytes the local pool writes."""
    def run_on(executor, destination: Path) -> dict[str, bytes]:
        config = load_config(TokensConfig, config_file=None, flags=groups_args(str(corpus / "*.jsonl.gz"), str(destination)))
        with executor:
            result = run(config, executor=executor)
        assert result.groups == 5 and result.counters["documents"] == 306
        return part_files(destination)

    pool = run_on(LocalExecutor(2), tmp_path / "pool")
    assert len(pool) > 10, "some groups write more than one memmap"
    for seed in (0, 1, 2):
        assert run_on(SerialExecutor(shuffle=seed), tmp_path / f"serial-{seed}") == pool


def normalized_outputs(files: dict[str, bytes]) -> dict[str, object]:
    """Memmaps as bytes; indexes as rows with the source path cut to its file name (it is the URL the run was given)."""
    outputs: dict[str, object] = {}
    for name, data in files.items():
        if name.endswith(".csv.gz"):
            rows = list(csv.reader(io.StringIO(gzip.decompress(data).decode("utf-8"))))
            data = [(*row[:3], row[3].rsplit("/", 1)[-1], row[4]) for row in rows]
        outputs[name] = data
    return outputs


@pytest.mark.parametrize("scheme", ["memory", "file"])
def test_urls_give_the_outputs_of_plain_paths(corpus, tmp_path, scheme):
    """Documents, tokenizer and destination as ``memory://`` or ``file://`` URLs: the same memmaps and indexes."""
    tokens(groups_args(str(corpus / "*.jsonl.gz"), str(tmp_path / "plain")))
    expected = normalized_outputs(part_files(tmp_path / "plain"))
    if scheme == "memory":
        memory = fsspec.filesystem("memory")
        root = f"memory://tokens-{uuid.uuid4().hex}"
        for path in corpus.iterdir():
            memory.pipe(f"{root}/documents/{path.name}", path.read_bytes())
        memory.pipe(f"{root}/tokenizer.json", (TOKENIZERS / "gpt-neo-test-tokenizer.json").read_bytes())
        destination = f"{root}/out"
        args = groups_args(f"{root}/documents/*.jsonl.gz", destination)
        args[args.index("--tokenizer.name_or_path") + 1] = f"{root}/tokenizer.json"
        tokens(args)
        names = [path.rsplit("/", 1)[-1] for path in memory.ls(destination, detail=False)]
        written = {name: memory.cat_file(f"{destination}/{name}") for name in names if name.startswith("part-")}
    else:
        tokens(groups_args(f"file://{corpus}/*.jsonl.gz", f"file://{tmp_path / 'url'}"))
        written = part_files(tmp_path / "url")
    assert normalized_outputs(written) == expected


def test_killed_at_random_points_and_resumed_equals_an_uninterrupted_run(corpus, tmp_path):
    """SIGKILL the CLI (and its workers) at random points, several times; ``--resume`` finishes the run as if it never stopped."""
    args = ["tokens", "--documents", str(corpus / "*.jsonl.gz"), *LLAMA, "--files_per_process", "1", "--batch_size", "50", "--processes", "2"]
    clean_seconds = timed_run([*args, "--destination", str(tmp_path / "clean")], tmp_path)
    resumed = [*args, "--destination", str(tmp_path / "killed"), "--resume"]
    killed = kill_at_random_points(resumed, tmp_path, kills=5, seed=15, clean_seconds=clean_seconds)
    assert killed >= 1, "the first run is killed once it has finished a unit"
    timed_run(resumed, tmp_path)
    assert output_contents(tmp_path / "killed") == output_contents(tmp_path / "clean")
    assert len(output_contents(tmp_path / "clean")) == 10  # five groups: a memmap and its index each
    assert no_temp_files(tmp_path / "killed") == []


def test_executor_kinds_on_the_command_line(corpus, tmp_path):
    """``--executor local`` (the default) and ``--executor serial`` are accepted and write the same files."""
    for kind in ("local", "serial"):
        result = run_cli(["tokens", *groups_args(str(corpus / "*.jsonl.gz"), str(tmp_path / kind)), "--processes", "2", "--executor", kind], tmp_path)
        assert result.returncode == 0, result.stderr
    assert part_files(tmp_path / "serial") == part_files(tmp_path / "local")


def test_unwritable_destination_is_one_clear_error(corpus, tmp_path):
    """A destination that cannot be created (under a regular file: root ignores permissions) fails before any work."""
    (tmp_path / "file").write_text("not a folder")
    destination = str(tmp_path / "file" / "dest")
    with pytest.raises(ConfigError) as error:
        tokens(groups_args(str(corpus / "*.jsonl.gz"), destination))
    assert error.value.path == "destination" and "not writable" in error.value.message
    result = run_cli(["tokens", *groups_args(str(corpus / "*.jsonl.gz"), destination)], tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("error: destination:") and "not writable" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_destination_holding_only_the_lock_of_a_killed_run_needs_no_resume(corpus, tmp_path):
    """A run killed before its first group finished leaves only its run lock: that is no output, so a plain
    rerun runs (without ``--resume``), takes the dead run's lock over and writes what a clean run writes."""
    args = groups_args(str(corpus / "*.jsonl.gz"), str(tmp_path / "killed"))
    ledger = tmp_path / "killed" / ".dolma-sql"
    ledger.mkdir(parents=True)
    dead = Holder("tokens", pid=2**22 + 1, host=socket.gethostname(), started=0.0)  # above Linux's largest pid
    (ledger / "tokens.lock").write_bytes(msgspec.json.encode(dead))
    result = run_cli(["tokens", *args], tmp_path)
    assert result.returncode == 0, result.stderr
    assert run_cli(["tokens", *groups_args(str(corpus / "*.jsonl.gz"), str(tmp_path / "clean"))], tmp_path).returncode == 0
    assert part_files(tmp_path / "killed") == part_files(tmp_path / "clean")
