"""Differential tests: dolma-sql tag against upstream dolma 1.2.1 on the same corpora.

Upstream runs once per (corpus, tagger set) per session, all taggers in one invocation with an
experiment (one attribute file per document file); dolma-sql runs the same command on a copy.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import run_oracle
from dolma_sql.cli import app
from dolma_sql.tagging import registry
from tag_helpers import assert_same_attributes, build_corpora

pytestmark = pytest.mark.oracle

# every built-in tagger upstream runs offline; random_number_v1 is compared for reproducibility elsewhere
OFFLINE = [
    "char_length_v1", "char_length_strip_ws_v1", "char_length_with_paragraphs_v1", "bytes_length_v1", "doc_count_v1",
    "whitespace_tokenizer_v1", "whitespace_tokenizer_with_paragraphs_v1", "gopher_v1", "gopher_v2", "c4_v1", "c4_v2",
    "pii_regex_v2", "pii_regex_with_counts_fast_v2", "not_alphanum_paragraph_v1",
]
# Python's backtracking regex with a backreference: quadratic on long texts (in both systems), so not run on
# the generated corpus or the multiple_files documents, which have texts of 100k+ characters
REPETITIONS = ["repetitions_v1", "paragraph_repetitions_v1"]
# uniseg is pure Python (slow on the 100k-character texts): the short-text corpora only
UNISEG = ["uniseg_length_v1", "uniseg_length_paragraphs_v1", "uniseg_length_paragraphs_with_empty_v1", "uniseg_length_paragraphs_with_doc_length_v1"]
LANGUAGE = ["cld2_doc_v2", "cld2_paragraph_v2", "cld2_en_doc_v2", "cld2_en_paragraph_v2", "cld2_en_paragraph_with_doc_score_v2"]
# upstream crashes (ZeroDivisionError) on a text without words: compared on corpora that have none
WORDS_REQUIRED = ["pii_regex_v1", "pii_regex_with_counts_v2"]
# upstream's code taggers (dolma[code]); detect-secrets scans line by line, so the short-text corpora only
CODE = ["code_redpajama_taggers_v1", "code_copyright_comments_v1", "code_secrets_v1", "code_starcoder_taggers_v1", "code_starcoder_taggers_v2"]
TAGGER_SETS = {
    "offline": OFFLINE,
    "code": CODE,
    "words_required": WORDS_REQUIRED,
    "repetitions": REPETITIONS,
    "language": LANGUAGE,
    "uniseg": UNISEG,
}
CORPORA = ["provided", "multiple", "generated", "edge"]
SKIP = {("edge", "words_required"), ("generated", "repetitions"), ("multiple", "repetitions"), ("generated", "uniseg"), ("multiple", "uniseg"),
        ("generated", "code"), ("multiple", "code")}
CASES = [(c, s) for c in CORPORA for s in TAGGER_SETS if (c, s) not in SKIP]


@pytest.fixture(scope="session")
def corpora(tmp_path_factory) -> dict[str, Path]:
    return build_corpora(tmp_path_factory.mktemp("tag-corpora"))


@pytest.fixture(scope="session")
def upstream_runs(oracle, corpora):
    """Upstream attributes per (corpus, tagger set), computed lazily once per session."""
    done: dict[tuple[str, str], Path] = {}

    def get(corpus: str, tagger_set: str) -> Path:
        if (corpus, tagger_set) not in done:
            run_oracle(oracle, ["tag", "--documents", "documents/*", "--taggers", *TAGGER_SETS[tagger_set],
                                "--experiment", tagger_set, "--processes", "2"], cwd=corpora[corpus])
            done[(corpus, tagger_set)] = corpora[corpus] / "attributes" / tagger_set
        return done[(corpus, tagger_set)]

    return get


def run_dolma_sql(args: list[str], cwd: Path) -> None:
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, args, catch_exceptions=False)
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("corpus,tagger_set", CASES)
def test_attributes_equal_upstream(corpus, tagger_set, corpora, upstream_runs, tmp_path):
    expected_dir = upstream_runs(corpus, tagger_set)
    mine = tmp_path / corpus
    shutil.copytree(corpora[corpus] / "documents", mine / "documents")
    run_dolma_sql(["tag", "--documents", "documents/*", "--taggers", *TAGGER_SETS[tagger_set], "--experiment", tagger_set,
                   "--processes", "1"], cwd=mine)
    expected_files = sorted(p.name for p in expected_dir.iterdir() if p.is_file())
    assert expected_files == sorted(p.name for p in (mine / "attributes" / tagger_set).iterdir() if p.is_file())
    for name in expected_files:
        assert_same_attributes(expected_dir / name, mine / "attributes" / tagger_set / name)


def test_per_tagger_layout_equals_upstream(corpora, oracle, tmp_path):
    """Without --experiment each tagger writes attributes/<tagger>/ with keys <tagger>__<tagger>__<type>."""
    upstream, mine = tmp_path / "up", tmp_path / "mine"
    for target in (upstream, mine):
        shutil.copytree(corpora["provided"] / "documents", target / "documents")
    taggers = ["char_length_v1", "c4_v2"]
    run_oracle(oracle, ["tag", "--documents", "documents/*.json.gz", "--taggers", *taggers], cwd=upstream)
    run_dolma_sql(["tag", "--documents", "documents/*.json.gz", "--taggers", *taggers], cwd=mine)
    for tagger in taggers:
        assert_same_attributes(upstream / "attributes" / tagger / "000.json.gz", mine / "attributes" / tagger / "000.json.gz")


def test_every_compared_tagger_is_registered():
    known = registry()
    assert all(name in known for names in TAGGER_SETS.values() for name in names)
