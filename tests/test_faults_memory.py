"""A huge document (issue 17 item 12): mix and tag hold a few copies of it, not one per step.

Peak memory is the kernel's high-water mark of the command's process (one process: ``--processes 1``),
less that of the same command on a small file, measured for a 64 MiB document."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

DOCUMENT_BYTES = 64 << 20

BOUNDS = {"mix": 3.0, "tag": 4.5}
"""Peak memory above a small file's, in sizes of the document (the README's "Failures" has the measures)."""


REPORTING_PEAK = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('peak', open('/proc/self/status').read().split('VmHWM:')[1].split()[0], file=sys.stderr))\n"
    "sys.argv[0] = 'dolma-sql'\n"
    "runpy.run_module('dolma_sql', run_name='__main__')\n"
)
"""Runs the command line and, as it exits, prints its own high-water mark of resident memory (kB). The kernel's
figure for a child (``ru_maxrss``) is no use here: it starts from the memory of the process it was forked from."""


def peak_rss(args: list[str], cwd: Path) -> int:
    """Bytes at the peak of ``dolma-sql args``'s resident memory (it must succeed)."""
    result = subprocess.run([sys.executable, "-P", "-c", REPORTING_PEAK, *args], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return int(result.stderr.rsplit("peak ", 1)[1].split()[0]) * 1024


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
