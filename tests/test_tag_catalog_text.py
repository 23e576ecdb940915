"""cc_re, OLMo pre-tokenizer, tokenizer-count and token-repetition taggers against upstream's own tagger classes (issue 18, item 5).

Upstream's classes run in the oracle venv (``tests/upstream_tagger.py``); the tokenizer taggers
load the conformance suite's test tokenizer there (upstream downloads its tokenizer from the hub)
and here (``--models.tokenizer``).
"""

from __future__ import annotations

import pytest

from conftest import CONFORMANCE
from tag_helpers import assert_same_spans, conformance_documents, edge_documents, read_rows, tagger_attributes, upstream_tagger_outputs, write_jsonl_gz
from test_tag_cli import fail, ok

TOKENIZER = CONFORMANCE / "tests/data/tokenizer/gpt-neo-test-tokenizer.json"
LICENCES = ["cc_re", "cc_re_fast"]
PRETOKENIZER = ["olmo_pretokenizer_v1", "olmo_pretokenizer_with_paragraphs_v1"]
TOKENIZERS = ["dolma_v1_tokenizer", "dolma_v2_tokenizer", "tokenizers_EleutherAI_GPT_NeoX_20B", "tokenizers_AI2_OLMo_v1"]
REPETITIONS = ["tokenizer_repetitions_v1", "paragraph_tokenizer_repetitions_v1", "tokenizer_repetitions_v2r2"]
TAGGERS = LICENCES + PRETOKENIZER + TOKENIZERS + REPETITIONS

PAGES = [
    '<a rel="license" href="http://creativecommons.org/licenses/by-sa/4.0/">CC</a>',
    '<A HREF="https://creativecommons.org/licenses/by-nc-nd/3.0/de/deed.de">x</A> and <meta name="l" content="http://creativecommons.org/licenses/by/2.5/">',
    "<a href='http://creativecommons.org/publicdomain/zero/1.0/legalcode.fr'>zero</a><a href=&quot;http://creativecommons.org/licenses/by-nc/4.0&quot;>",
    'see http://creativecommons.org/licenses/by-nc-sa/ or https://creativecommons.org/licenses/publicdomain >',
    '<p>no licence here, only creativecommons.org/about</p>',
    '<a class="x" title="Créative, Commons!" href="http://creativecommons.org/licenses/by/4.0/" >a</a>\n<a href="http://creativecommons.org/licenses/by/4.0/">b</a>',
    "",
]


def documents() -> list[dict]:
    texts = edge_documents(40, seed=4)
    docs = [{**doc, "metadata": {"html": PAGES[i % len(PAGES)], "url": "u"}} for i, doc in enumerate(texts)]
    repeated = ["ha ha ha ha ha", "abcabcabcabc xyz", "one two one two one two one two\n\nok ok ok ok\n", "x" * 50, "😊😊😊😊 là là là là",
                "lorem ipsum dolor lorem ipsum dolor lorem ipsum dolor lorem ipsum dolor!", "\n\n1 2 3 1 2 3 1 2 3 1 2 3\n"]
    docs += [{"id": f"r{i}", "text": text, "metadata": {"html": ""}} for i, text in enumerate(repeated)]
    return docs + [{**doc, "metadata": {**doc.get("metadata", {}), "html": PAGES[0]}} for doc in conformance_documents()[:3]]


def model_of(tagger: str) -> str:
    return f"={TOKENIZER}" if tagger in TOKENIZERS + REPETITIONS else ""


@pytest.fixture(scope="session")
def upstream_outputs(oracle, tmp_path_factory) -> dict[str, list[dict]]:
    return upstream_tagger_outputs(oracle, documents(), [f"{tagger}{model_of(tagger)}" for tagger in TAGGERS], tmp_path_factory.mktemp("upstream-text"))


@pytest.fixture(scope="module")
def mine(tmp_path_factory) -> list[dict]:
    root = tmp_path_factory.mktemp("text-taggers")
    write_jsonl_gz(root / "documents" / "d.jsonl.gz", documents())
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", *TAGGERS, "--experiment", "x", "--models.tokenizer", str(TOKENIZER)], root)
    return read_rows(root / "attributes/x/d.jsonl.gz")


def byte_level_splits_differ(tagger: str, text: str) -> bool:
    """tokenizers 0.19 (upstream's pin) keeps a run of emoji in one byte-level piece; later versions split it."""
    return tagger in PRETOKENIZER and any(ord(c) > 0xFFFF for c in text)


@pytest.mark.oracle
@pytest.mark.parametrize("tagger", TAGGERS)
def test_text_taggers_equal_upstream_code(tagger, upstream_outputs, mine):
    for document, want, row in zip(documents(), upstream_outputs[tagger], mine):
        assert "__error__" not in want, want
        if byte_level_splits_differ(tagger, document["text"]):
            continue
        assert_same_spans(tagger_attributes(row, f"x__{tagger}__"), want, document["text"][:60])


def test_licences_found_in_the_html(mine):
    first = tagger_attributes(mine[0], "x__cc_re__")
    assert first == {"cc_by_sa_4_0": [[0, len(documents()[0]["text"]), 1.0]]}
    assert set(tagger_attributes(mine[1], "x__cc_re__")) == {"cc_by_nc_nd_3_0_de", "cc_by_2_5"}


def test_cc_re_without_html_fails_naming_the_document(tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [{"id": "a", "text": "x", "metadata": {"html": ""}}, {"id": "b", "text": "y"}])
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "cc_re"], tmp_path)
    assert "html" in message and "'b'" in message


def test_tokenizer_taggers_need_a_local_tokenizer_file(tmp_path):
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", [{"id": "a", "text": "x"}])
    assert "--models.tokenizer" in fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "dolma_v2_tokenizer"], tmp_path)
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "tokenizers_AI2_OLMo_v1", "--models.tokenizer", "nope.json"], tmp_path)
    assert "tokenizer file not found: nope.json" in message
    assert not (tmp_path / "attributes").exists()


def test_token_repetitions_are_found(mine):
    rows = {row["id"]: row for row in mine}
    spans = tagger_attributes(rows["r0"], "x__tokenizer_repetitions_v1__")
    assert spans["repetition"] and spans["repetition"][0][2] >= 3 and spans["doc_max_score_repetition"][0][2] >= 3
    assert "doc_frac_repetition" not in tagger_attributes(rows["edge-0"], "x__tokenizer_repetitions_v2r2__")  # v2r2: no stats without one
