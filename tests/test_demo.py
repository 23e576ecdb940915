"""The README's main job: ``dolma-sql demo`` from the installed console script."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from mixhelpers import read_outputs


def test_demo_mixes_the_bundled_sample(tmp_path):
    executable = shutil.which("dolma-sql")
    assert executable, "the dolma-sql console script is not installed (pip install .)"
    result = subprocess.run([executable, "demo", str(tmp_path / "demo")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    documents = read_outputs(str(tmp_path / "demo" / "output" / "mixed"))
    assert 0 < len(documents) < 400
    assert all("attributes" not in doc for doc in documents)
    assert "documents kept" in result.stdout and "--explain" in result.stdout
    assert str(len(documents)) in result.stdout


def test_a_source_checkout_runs_without_installing():
    """`python -m dolma_sql` at the checkout's root (as the benches run it) finds sql/, udfs/ and recipes/."""
    root = Path(__file__).resolve().parent.parent
    code = "import dolma_sql, dolma_sql.sql, dolma_sql.udfs, dolma_sql.recipes; print(dolma_sql.__file__, dolma_sql.sql.__file__)"
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    package, sql = result.stdout.split()
    assert Path(package).parent == root / "dolma_sql" and Path(sql).parent == root / "sql"


def test_the_demo_writes_only_into_a_new_folder_or_an_earlier_demos(tmp_path):
    executable = shutil.which("dolma-sql")
    assert executable, "the dolma-sql console script is not installed (pip install .)"
    theirs = tmp_path / "theirs"
    (theirs / "output").mkdir(parents=True)
    (theirs / "output" / "notes.txt").write_text("keep me")
    refused = subprocess.run([executable, "demo", str(theirs)], capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "is not empty, and no earlier demo made it" in refused.stderr and "name a new folder" in refused.stderr
    assert sorted(str(path.relative_to(theirs)) for path in theirs.rglob("*")) == ["output", "output/notes.txt"]
    (tmp_path / "a-file").write_text("")
    under_a_file = subprocess.run([executable, "demo", str(tmp_path / "a-file" / "demo")], capture_output=True, text=True, timeout=300)
    assert under_a_file.returncode == 1 and "Traceback" not in under_a_file.stderr and under_a_file.stderr.startswith("error: FOLDER"), under_a_file.stderr
    for _ in range(2):  # an earlier demo's folder is the demo's to replace
        again = subprocess.run([executable, "demo", str(tmp_path / "demo")], capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
