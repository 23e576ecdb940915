"""A full disk (issue 17 item 5): every command that writes ends with one clear error naming the output and
the free space, in the caller or a worker process, leaves no temp file, and a rerun once space is freed
writes what a clean run writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from runtime_helpers import no_temp_files, output_contents, run_cli

from conftest import CONFORMANCE, SHARED

TOKENIZER = CONFORMANCE / "tests" / "data" / "tokenizer" / "gpt-neo-test-tokenizer.json"


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("disk-full-corpus")
    subprocess.run([sys.executable, str(SHARED / "bench" / "gencorpus.py"), str(root), "--docs", "1200", "--files", "4", "--seed", "3"],
                   check=True, capture_output=True)  # fmt: skip
    return root / "documents"


def dedupe_config(mode: str, root: Path) -> dict:
    """Attributes (``attributes`` links into ``out``), the filter or lineage, and the extracted tables all in ``out``."""
    return {
        "documents": ["documents/*.jsonl.gz"],
        "dedupe": {"name": "dd", "mode": mode, "paragraphs": {"attribute_name": "dup"}, "skip_empty": True},
        "bloom_filter": {"file": "out/filter.bin", "read_only": False, "estimated_doc_count": 20_000, "desired_false_positive_rate": 1e-6},
        "work_dir": {"output": str(root / "out" / "work")},
        "processes": 2,
    }


COMMANDS = {
    "mix": ["mix", "recipe.json"],
    "tag": ["tag", "--documents", "documents/*.jsonl.gz", "--taggers", "gopher_v1", "char_length_v1", "--destination", "out/tag", "--processes", "2"],
    "tokens": ["tokens", "--documents", "documents/*.jsonl.gz", "--tokenizer.name_or_path", str(TOKENIZER), "--tokenizer.eos_token_id", "50279",
               "--tokenizer.pad_token_id", "1", "--files_per_process", "1", "--destination", "out/tokens", "--processes", "2"],
    "dedupe-bloom": ["-c", "bloom.json", "dedupe"],
    "dedupe-exact": ["-c", "exact.json", "dedupe"],
}  # fmt: skip
RESUME = {"tokens": ["--resume"]}
"""What a rerun adds to finish an interrupted run (tokens refuses a destination that is not empty without it)."""


def prepare(root: Path, documents: Path) -> Path:
    """A run folder: ``documents`` (the corpus), ``out`` for every output, the configs that write there."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "documents").symlink_to(documents)
    (root / "out").mkdir(exist_ok=True)
    (root / "out" / "attributes").mkdir()
    (root / "attributes").symlink_to(root / "out" / "attributes")
    recipe = {"streams": [{"name": "s", "documents": ["documents/*.jsonl.gz"], "output": {"path": "out/mix", "max_size_in_bytes": 200_000}}], "processes": 2}
    (root / "recipe.json").write_text(json.dumps(recipe))
    for mode in ("bloom", "exact"):
        (root / f"{mode}.json").write_text(json.dumps(dedupe_config(mode, root)))
    return root


def written(root: Path) -> dict[str, bytes]:
    """The outputs, without the intermediate tables of dedupe's work folder (removed after a finished run)."""
    return {name: data for name, data in output_contents(root / "out").items() if not name.startswith("work/")}


def mount_tmpfs(folder: Path, size: int) -> None:
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.strip()}")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_disk_is_one_clear_error_and_a_rerun_completes(documents, tmp_path, command):
    args = COMMANDS[command]
    clean = prepare(tmp_path / "clean", documents)
    result = run_cli(args, clean)
    assert result.returncode == 0, result.stderr[-3000:]
    expected = written(clean)
    needed = sum(path.stat().st_size for path in (clean / "out").rglob("*") if path.is_file())

    full = tmp_path / "full"
    full.mkdir()
    (full / "out").mkdir()
    mount_tmpfs(full / "out", max(64 << 10, needed // 3 // 4096 * 4096))
    try:
        prepare(full, documents)
        result = run_cli(args, full)
        assert result.returncode == 1, result.stderr[-3000:]
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
        error = next(line for line in result.stderr.splitlines() if line.startswith("error: "))
        assert "No space left on device" in error and "bytes free in" in error, result.stderr
        assert error.removeprefix("error: ").startswith(("out/", "attributes/", str(full))), error  # names the output
        assert no_temp_files(full / "out") == []

        subprocess.run(["mount", "-o", f"remount,size={needed * 4 + (8 << 20)}", str(full / "out")], check=True)
        result = run_cli([*args, *RESUME.get(command, [])], full)
        assert result.returncode == 0, result.stderr[-3000:]
        assert written(full) == expected
        assert no_temp_files(full / "out") == []
    finally:
        subprocess.run(["umount", str(full / "out")], check=True)
