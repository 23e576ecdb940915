"""Every tagger of upstream dolma 1.2.1's catalog is either in dolma-sql or explained (issue 18, item 5)."""

from __future__ import annotations

from pathlib import Path

from dolma_sql.tagger.catalog import UPSTREAM_ONLY
from dolma_sql.tagging import registry
from tag_helpers import write_jsonl_gz
from test_tag_cli import fail

# python -c "import dolma.taggers; from dolma.core.registry import TaggerRegistry; print([n for n, _ in TaggerRegistry.items()])"
UPSTREAM_CATALOG = (Path(__file__).parent / "snapshots" / "upstream_taggers.txt").read_text().split()


def test_the_upstream_catalog_has_99_taggers_each_here_or_explained():
    assert len(UPSTREAM_CATALOG) == 99
    known = registry()
    missing = [name for name in UPSTREAM_CATALOG if name not in known]
    assert sorted(missing) == sorted(UPSTREAM_ONLY), "every upstream tagger dolma-sql lacks says why"
    assert not set(UPSTREAM_ONLY) & set(known)


def test_an_upstream_tagger_that_is_not_here_says_so_and_why(tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [{"id": "0", "text": "x"}])
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "pii_presidio_v1"], tmp_path)
    assert "upstream dolma tagger that dolma-sql does not have" in message and "spaCy" in message
    assert "did you mean" not in message
    assert "did you mean" in fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "char_length_v2"], tmp_path)
