"""``tag`` on the runtime and storage layers: any executor and unit order gives the same bytes, remote
URLs behave as local paths, a killed run resumes to an uninterrupted run's output, the ledger redoes
files tagged with other options, and an unwritable destination fails before any work."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import uuid
from pathlib import Path

import fsspec
import pytest
from runtime_helpers import kill_at_random_points, no_temp_files, output_contents, run_cli, timed_run

from dolma_sql.config import config_from
from dolma_sql.config.tag import TagConfig
from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.tagger import run
from tag_helpers import edge_documents, read_rows, write_jsonl_gz
from test_tag_cli import ok

TAGGERS = ["gopher_v1", "c4_v2", "random_number_v1", "char_length_v1"]
WORDS = "the of and a to in is you that it he was for on are with as I his they be at one have this".split()


def write_corpus(root: Path, *, files: int = 5, documents: int = 60, words: int = 40, seed: int = 3) -> None:
    """``root/documents/`` with files of random word texts (plus the edge cases in the first one), in a sub-folder too."""
    rng = random.Random(seed)
    for index in range(files):
        texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, words))) + "." for _ in range(documents)]
        rows = [{"id": f"f{index}-{n}", "text": text, "source": "test"} for n, text in enumerate(texts)]
        if index == 0:
            rows += edge_documents(50, seed=seed)
        folder = root / "documents" / ("sub" if index % 2 else "")
        write_jsonl_gz(folder / f"part-{index}.jsonl.gz", rows)


def tag(documents: list[str], executor, **options) -> dict[str, float]:
    config = config_from({"documents": documents, "taggers": TAGGERS, "seed": 11, **options}, TagConfig)
    with executor:
        return run(config, executor=executor, quiet=True)


def raw_files(folder: Path) -> dict[str, bytes]:
    """Every attribute file's compressed bytes (ledger records left out)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.gz")) if ".dolma-sql" not in p.parts}


@pytest.mark.parametrize("experiment", ["e", None], ids=["experiment", "per-tagger"])
def test_any_executor_and_order_give_the_same_bytes(tmp_path, experiment):
    write_corpus(tmp_path)
    documents = [str(tmp_path / "documents" / "**" / "*.gz")]
    tag(documents, LocalExecutor(2), experiment=experiment)
    expected = raw_files(tmp_path / "attributes")
    assert len(expected) == (5 if experiment else 5 * len(TAGGERS))
    for seed in (1, 2, 3):
        tag(documents, SerialExecutor(shuffle=seed), experiment=experiment, ignore_existing=True)
        assert raw_files(tmp_path / "attributes") == expected


@pytest.fixture()
def memory_root():
    folder = f"memory://tag-test-{uuid.uuid4().hex}"
    yield folder
    memory = fsspec.filesystem("memory")
    if memory.exists(folder):
        memory.rm(folder, recursive=True)


def copy_tree_to(url: str, folder: Path) -> None:
    fs, root = fsspec.core.url_to_fs(url)
    for path in folder.rglob("*"):
        if path.is_file():
            fs.pipe_file(f"{root}/{path.relative_to(folder)}", path.read_bytes())


def tree_at(url: str) -> dict[str, bytes]:
    """Every attribute file under ``url`` by relative path, compressed bytes (ledger records left out)."""
    fs, root = fsspec.core.url_to_fs(url)
    root = root.rstrip("/")
    return {path[len(root) + 1 :]: fs.cat_file(path) for path in sorted(fs.find(root)) if ".dolma-sql" not in path}


@pytest.mark.parametrize("where", ["memory", "file"])
def test_remote_and_file_urls_give_the_outputs_of_plain_paths(tmp_path, memory_root, where):
    plain = tmp_path / "plain"
    write_corpus(plain, files=3)
    tag([str(plain / "documents" / "**" / "*.gz")], SerialExecutor(), experiment="e")
    tag([str(plain / "documents" / "*.gz")], SerialExecutor(), experiment="d", destination=[str(plain / "out")])
    expected = raw_files(plain / "attributes")
    expected_destination = raw_files(plain / "out")
    if where == "memory":
        root = memory_root
        copy_tree_to(f"{root}/documents", plain / "documents")
    else:
        root = f"file://{tmp_path / 'url'}"
        write_corpus(tmp_path / "url", files=3)
    tag([f"{root}/documents/**/*.gz"], SerialExecutor(), experiment="e")
    tag([f"{root}/documents/*.gz"], SerialExecutor(), experiment="d", destination=[f"{root}/out"])
    assert tree_at(f"{root}/attributes") == expected
    assert tree_at(f"{root}/out") == expected_destination
    totals = tag([f"{root}/documents/**/*.gz"], SerialExecutor(), experiment="e")
    assert totals["units_skipped"] == 3, "the ledger lives beside the outputs, there too"


def test_local_documents_with_a_remote_destination(tmp_path, memory_root):
    write_corpus(tmp_path, files=2)
    documents = [str(tmp_path / "documents" / "**" / "*.gz")]
    tag(documents, SerialExecutor(), experiment="e", destination=[str(tmp_path / "out")])
    tag(documents, SerialExecutor(), experiment="e", destination=[f"{memory_root}/out"], work_dir={"output": str(tmp_path / "staging")})
    assert tree_at(f"{memory_root}/out") == raw_files(tmp_path / "out")
    assert sorted(raw_files(tmp_path / "out")) == ["part-0.jsonl.gz", "sub/part-1.jsonl.gz"]
    assert not list((tmp_path / "staging").iterdir()), "staged outputs are uploaded, then removed"


def test_a_run_killed_at_random_points_resumes_to_the_same_output(tmp_path):
    for name in ("once", "killed"):
        write_corpus(tmp_path / name, files=6, documents=1000, words=120)
    args = ["tag", "--documents", "documents/**/*.gz", "--taggers", *TAGGERS, "--experiment", "e", "--processes", "2"]
    clean_seconds = timed_run(args, tmp_path / "once")
    killed = kill_at_random_points(args, tmp_path / "killed", kills=4, seed=5, clean_seconds=clean_seconds)
    assert killed >= 1, "the first run is killed once it has finished a unit"
    timed_run(args, tmp_path / "killed")
    assert output_contents(tmp_path / "killed" / "attributes") == output_contents(tmp_path / "once" / "attributes")
    assert no_temp_files(tmp_path / "killed") == []


def test_the_ledger_redoes_files_tagged_with_other_options(tmp_path):
    write_corpus(tmp_path, files=2)

    def tagged(**options) -> dict[str, float]:
        return tag([str(tmp_path / "documents" / "**" / "*.gz")], SerialExecutor(), experiment="e", **options)

    assert tagged()["files"] == 2
    assert tagged() == {"units_skipped": 2}
    assert tagged(seed=12)["files"] == 2, "another seed changes random_number_v1"
    assert tagged(taggers=["char_length_v1"])["files"] == 2
    assert tagged(taggers=["char_length_v1"]).get("files") is None
    # back to the first options: their records were dropped when other options replaced the files
    assert tagged()["files"] == 2
    keys = read_rows(tmp_path / "attributes" / "e" / "part-0.jsonl.gz")[0]["attributes"]
    assert {key.split("__")[1] for key in keys} == set(TAGGERS)


def test_a_file_rewritten_by_a_run_with_other_options_is_redone(tmp_path):
    """Without an experiment a unit writes one file per tagger: another run may rewrite some of them."""
    write_corpus(tmp_path, files=2)
    documents = [str(tmp_path / "documents" / "**" / "*.gz")]
    first = {"taggers": ["char_length_v1", "random_number_v1"], "seed": 1}
    assert tag(documents, SerialExecutor(), **first)["files"] == 2
    expected = raw_files(tmp_path / "attributes")
    assert tag(documents, SerialExecutor(), taggers=["random_number_v1"], seed=2)["files"] == 2
    assert raw_files(tmp_path / "attributes") != expected
    assert tag(documents, SerialExecutor(), **first)["files"] == 2
    assert raw_files(tmp_path / "attributes") == expected
    assert tag(documents, SerialExecutor(), **first) == {"units_skipped": 2}


def test_a_document_file_changed_since_it_was_tagged_is_tagged_again(tmp_path):
    write_corpus(tmp_path, files=2)
    documents = [str(tmp_path / "documents" / "**" / "*.gz")]
    assert tag(documents, SerialExecutor(), experiment="e")["files"] == 2
    first = tmp_path / "documents" / "part-0.jsonl.gz"
    rows = [{"id": f"new-{n}", "text": "a new text."} for n in range(7)]
    write_jsonl_gz(first, rows)
    again = tag(documents, SerialExecutor(), experiment="e")
    assert again["files"] == 1 and again["units_skipped"] == 1
    assert [row["id"] for row in read_rows(tmp_path / "attributes" / "e" / "part-0.jsonl.gz")] == [row["id"] for row in rows]


def test_an_unwritable_destination_is_one_clear_error_before_any_work(tmp_path):
    write_corpus(tmp_path, files=1)
    result = run_cli(["tag", "--documents", "documents/*.gz", "--taggers", "gopher_v1", "--destination", "/dev/null/x"], tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: destination: '/dev/null/x") and "not writable" in first, result.stderr


def test_a_read_only_destination_is_one_clear_error_before_any_work(tmp_path, read_only_folder):
    write_corpus(tmp_path, files=1)
    (tmp_path / "locked").symlink_to(read_only_folder)
    result = run_cli(["tag", "--documents", "documents/*.gz", "--taggers", "gopher_v1", "--destination", "locked/x"], tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: destination: 'locked/x") and "not writable" in result.stderr
    assert not list((tmp_path / "locked").iterdir())


def test_the_executor_is_chosen_on_the_command_line(tmp_path):
    write_corpus(tmp_path, files=3)
    for kind in ("local", "serial"):
        args = ["--documents", "documents/**/*.gz", "--taggers", "gopher_v1", "--experiment", "e", "--destination", f"out/{kind}"]
        ok(["tag", *args, "--executor", kind, "--processes", "2"], tmp_path)
    assert raw_files(tmp_path / "out" / "local") == raw_files(tmp_path / "out" / "serial")
    assert len(raw_files(tmp_path / "out" / "local")) == 3


PROBE_TAGGER = '''
import multiprocessing, sys
from dolma_sql.tagging import Spans, tagger

@tagger("process_probe", types=["in_worker", "cli_imported", "display_imported"])
def process_probe(batch):
    in_worker = float(multiprocessing.parent_process() is not None)
    cli = float("dolma_sql.cli" in sys.modules)
    display = float("rich" in sys.modules or "yaml" in sys.modules)
    return {name: Spans.document(batch.lengths, value) for name, value in
            (("in_worker", in_worker), ("cli_imported", cli), ("display_imported", display))}
'''


def test_workers_of_the_console_script_import_neither_the_command_line_nor_the_display(tmp_path):
    """Spawned workers would run the ``dolma-sql`` script again (the CLI, typer, rich) unless it passes
    for a package's ``__main__``; and a worker, which only counts progress, needs neither rich (the caller
    draws it) nor yaml (the caller reads the config). With an allocator to preload, every unit runs in a worker."""
    script = shutil.which("dolma-sql")
    assert script, "the dolma-sql console script is not installed (pip install .)"
    write_corpus(tmp_path, files=3)
    (tmp_path / "probe_tagger.py").write_text(PROBE_TAGGER)
    args = ["tag", "--documents", "documents/**/*.gz", "--taggers", "process_probe", "--tagger_modules", "probe_tagger.py",
            "--experiment", "p", "--processes", "2", "--executor.allocator", "c"]
    result = subprocess.run([script, *args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    files = list((tmp_path / "attributes" / "p").rglob("*.gz"))
    assert len(files) == 3
    scores: dict[str, set[float]] = {}
    for path in files:
        for row in read_rows(path):
            for key, spans in row["attributes"].items():
                scores.setdefault(key.rsplit("__", 1)[1], set()).add(spans[0][2])
    assert scores == {"in_worker": {1.0}, "cli_imported": {0.0}, "display_imported": {0.0}}, "every unit ran in a worker, none of which imported the CLI, rich or yaml"
