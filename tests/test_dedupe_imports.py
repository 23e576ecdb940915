"""A Bloom dedupe loads neither exact mode's modules (and sqlglot with them) nor minhash's: each process of a
run pays only for its mode's imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dedupe_helpers import flags, write_corpus

CHECK = """
import sys
from dedupe_helpers import run
run(sys.argv[1:])
loaded = sorted(name for name in ("sqlglot", "dolma_sql.deduper.exact_run", "dolma_sql.deduper.minhash_run") if name in sys.modules)
print("loaded:" + ",".join(loaded))
"""


def test_a_bloom_run_imports_no_other_mode(tmp_path: Path) -> None:
    write_corpus(tmp_path, {"a": [{"id": "1", "text": "same\\nother"}, {"id": "2", "text": "same"}]})
    done = subprocess.run([sys.executable, "-c", CHECK, *flags(tmp_path), "--processes", "1"], capture_output=True, text=True,
                          cwd=Path(__file__).parent, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "loaded:"
    assert (tmp_path / "attributes" / "dd" / "a.jsonl.gz").exists()
