"""A dolma user's first day (issue 18): what the commands do besides their main job, tried as a new
user tries them: worker counts, tokens options, the demo's next steps, output at 80 columns, profiling."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from executor_helpers import square
from runtime_helpers import run_cli

from dolma_sql.runtime import run_units
from dolma_sql.runtime.local import LocalExecutor


def write_documents(path: Path, texts: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps({"id": str(i), "text": text, "source": "t"}) + "\n" for i, text in enumerate(texts))
    path.write_bytes(gzip.compress(lines.encode(), mtime=0))
    return path


# item 4: no more workers than units


@pytest.mark.parametrize("allocator", ["system", "c"], ids=["caller-works", "allocator-preloaded"])
def test_a_pool_starts_no_more_workers_than_units(allocator):
    """8 processes for 3 units: at most 3 run them (the caller is one of them unless an allocator is preloaded)."""
    with LocalExecutor(8, allocator=allocator) as executor:
        result = run_units(square, [1, 2, 3], executor=executor, label="test", quiet=True)
        assert result["units"] == 3
        assert executor.workers_started <= (2 if executor.caller_works else 3)
        run_units(square, list(range(20)), executor=executor, label="test", quiet=True)  # a later, larger map gets more
        assert executor.workers_started <= 7 if executor.caller_works else 8


def test_a_one_shard_mix_with_8_processes_starts_one_process_at_most_and_says_so(tmp_path):
    documents = write_documents(tmp_path / "documents" / "only.jsonl.gz", ["a document long enough", "another one"])
    recipe = {"streams": [{"name": "one", "documents": [str(documents)], "output": {"path": str(tmp_path / "out")}}], "processes": 8}
    from dolma_sql import mix

    with LocalExecutor(8) as executor:
        mix(recipe, executor=executor)
        assert executor.workers_started <= (0 if executor.caller_works else 1)
    recipe["streams"][0]["output"]["path"] = str(tmp_path / "cli")
    (tmp_path / "recipe.json").write_text(json.dumps(recipe))
    result = run_cli(["mix", str(tmp_path / "recipe.json"), "--processes", "8"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 unit of work for --processes 8: running it in 1 process, not 8" in result.stderr
