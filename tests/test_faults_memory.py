"""A huge document (issue 17 item 12): mix and tag hold a few copies of it, not one per step.

Peak memory is the kernel's high-water mark of the command's process (one process: ``--processes 1``),
less that of the same command on a small file, measured for a 64 MiB document."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
from pathlib import Path

import pytest
import yaml
from runtime_helpers import cli_command

DOCUMENT_BYTES = 64 << 20

BOUNDS = {"mix": 3.0, "tag": 4.0}
"""Peak memory above a small file's, in sizes of the document (the README's "Failures" has the measures)."""


def peak_rss(args: list[str], cwd: Path) -> int:
    """Bytes at the peak of ``dolma-sql args``'s resident memory (it must succeed)."""
    process = subprocess.Popen(cli_command(args), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, stderr.decode()[-3000:]
    return usage.ru_maxrss * 1024


def write_documents(path: Path, documents: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress("".join(json.dumps(document) + "\n" for document in documents).encode(), compresslevel=1, mtime=0))


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> Path:
    """``huge/``: one document of :data:`DOCUMENT_BYTES` (lines of words: escaped newlines) and a small one after it;
    ``small/``: the small one alone."""
    root = tmp_path_factory.mktemp("huge-document")
    rng = random.Random(0)
    words = "the of and a to in is you that it he was for on are with as his they be at one have this from".split()
    line = " ".join(rng.choice(words) for _ in range(12)) + ".\n"
    text = line * (DOCUMENT_BYTES // len(line))
    standard = {"source": "t", "added": "2024-01-01", "created": "2024-01-01", "metadata": {"url": "u"}}
    write_documents(root / "huge" / "documents" / "part-0.jsonl.gz", [{"id": "huge", "text": text, **standard}, {"id": "small", "text": "small", "source": "t"}])
    write_documents(root / "small" / "documents" / "part-0.jsonl.gz", [{"id": "small", "text": "small", "source": "t"}])
    for name in ("huge", "small"):
        recipe = {"streams": [{"name": "s", "documents": ["documents/*.gz"], "output": {"path": "mixed"}}], "processes": 1}
        (root / name / "recipe.yaml").write_text(yaml.safe_dump(recipe))
    return root


COMMANDS = {
    "mix": ["mix", "recipe.yaml"],
    "tag": ["tag", "--documents", "documents/*.gz", "--taggers", "char_length_v1", "--experiment", "t", "--processes", "1"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_huge_document_costs_a_few_times_its_size(corpora, command):
    baseline = peak_rss(COMMANDS[command], corpora / "small")
    peak = peak_rss(COMMANDS[command], corpora / "huge")
    ratio = (peak - baseline) / DOCUMENT_BYTES
    print(f"{command}: {peak >> 20} MiB peak, {baseline >> 20} MiB on a small file: {ratio:.1f} x the document")
    assert ratio < BOUNDS[command]
