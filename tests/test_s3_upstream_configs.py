"""Upstream's S3-only mixer configs, run UNCHANGED against the S3 server holding data at the paths they name
(the contract's §4.8 and §4.12; no tokenizer or tagger config of upstream's names s3://).

- ``c4-cleaned.json``: the conformance documents at its input path, tagged there with ``c4_v1`` as experiment
  ``c4_rules``; every output document is the input with the two rules' spans removed, as the contract's
  span model computes. Its relative ``work_dir`` folders stage the downloaded inputs and the outputs.
- ``mixer-validator-jsonpath.yaml`` / ``-jq.yaml``: no data of upstream's, so documents and attributes are
  generated at their paths, one per case of §4.12. Both keep ``ok, cld2_missing, cld2_empty, bff_half,
  ratio_eq``, replace the e-mail span and discard ``attributes``. Upstream's JSONPath run also keeps
  ``bff_int`` (``1 >= 1.0`` is false there); dolma-sql compares numbers by value (a documented
  difference), so both drop it.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import fsspec
import pytest
from s3_helpers import cli, ok

from conftest import CONFORMANCE
from mixhelpers import strip_provenance

C4_ROOT = "s3://ai2-llm/pretraining-data/tests/mixer"
VALIDATOR_ROOT = "s3://ai2-oe-data/mashai/tiny-DCLM-pool-subset-october"
SET = "cc_tiny_subset_analysis_october"
BFF = "bff_duplicate_paragraph_spans_new"


def fresh(url: str) -> None:
    """An empty prefix under ``url``, its bucket made if missing (upstream's bucket names are fixed)."""
    fs = fsspec.filesystem("s3")
    bucket = url.removeprefix("s3://").split("/")[0]
    if not fs.exists(bucket):
        fs.mkdir(bucket)
    if fs.exists(url):
        fs.rm(url, recursive=True)
    fs.invalidate_cache()


def read_s3_jsonl(url: str) -> list[dict]:
    fs = fsspec.filesystem("s3")
    return [json.loads(line) for line in gzip.decompress(fs.cat_file(url)).splitlines()]


def outputs(folder: str) -> dict[str, list[dict]]:
    fs = fsspec.filesystem("s3")
    fs.invalidate_cache()
    return {path.rsplit("/", 1)[1]: read_s3_jsonl(f"s3://{path}") for path in sorted(fs.find(folder)) if "/.dolma-sql/" not in path}


def span_model(text: str, reps: list[tuple[int, int, str]]) -> str:
    """The contract's span replacement model (§4.8), which reproduced upstream on 951 documents."""
    R = sorted(reps, key=lambda r: r[0])
    if not R:
        return text
    out, si, span_start = [], 0, 0
    for i, c in enumerate(text):
        if si < len(R):
            s, e, rep = R[si]
            inside = s <= i < e
            if i == s:
                span_start = i
            if not inside:
                if i == e:
                    if rep != "":
                        out.append(rep.replace("{}", text[span_start:i]))
                    while si < len(R) and R[si][0] < i:
                        si += 1
                if si < len(R) and R[si][0] == i:
                    span_start = i
                else:
                    out.append(c)
        else:
            out.append(c)
    if si < len(R) and R[si][2] != "":
        out.append(R[si][2].replace("{}", text[span_start:]))
    return "".join(out)


@pytest.fixture()
def conformance_folder(conformance) -> Path:
    """The conformance copy, without the work folder the configs stage into (to see that they make it)."""
    shutil.rmtree(conformance / "tests" / "work", ignore_errors=True)
    return conformance


def test_c4_cleaned_runs_unchanged_and_removes_the_c4_rule_spans(s3_server, conformance_folder):
    fresh(C4_ROOT)
    documents = f"{C4_ROOT}/inputs/c4/documents/head/0000.json.gz"
    fsspec.filesystem("s3").put_file(str(CONFORMANCE / "tests/data/provided/documents/000.json.gz"), documents.removeprefix("s3://"))
    ok(cli(["tag", "--documents", f"{C4_ROOT}/inputs/c4/documents/*/0000.json.gz", "--taggers", "c4_v1", "--experiment", "c4_rules"], conformance_folder))

    result = ok(cli(["-c", "tests/config/c4-cleaned.json", "mix"], conformance_folder))

    assert "mixed 10 documents" in result.stderr
    produced = outputs(f"{C4_ROOT}/outputs/c4-cleaned/documents/head")
    assert list(produced) == ["c4-cleaned-0000.jsonl.gz"]
    attributes = read_s3_jsonl(f"{C4_ROOT}/inputs/c4/attributes/c4_rules/head/0000.json.gz")
    keys = ["c4_rules__c4_v1__lines_with_no_ending_punctuation", "c4_rules__c4_v1__lines_with_too_few_words"]
    originals = read_s3_jsonl(documents)
    assert len(produced["c4-cleaned-0000.jsonl.gz"]) == len(originals) == 10
    changed = 0
    for ours, original, attribute in zip(produced["c4-cleaned-0000.jsonl.gz"], originals, attributes):
        spans = [(start, end, "") for key in keys for start, end, score in attribute["attributes"][key] if score >= 0.5]
        assert ours["id"] == original["id"] and ours["text"] == span_model(original["text"], spans)
        assert {key: ours["attributes"][key] for key in keys} == {key: attribute["attributes"][key] for key in keys}
        changed += ours["text"] != original["text"]
    assert changed >= 5, "the rules remove lines from most documents"
    work = conformance_folder / "tests" / "work" / "c4-cleaned"
    assert (work / "input").is_dir() and (work / "output").is_dir(), "the config's work_dir stages inputs and outputs"
    assert not list((work / "input").iterdir()) and not list((work / "output").iterdir()), "staged copies are removed"


EMAIL = "someone@example.org"
PASSING = {
    f"{SET}__cld2_en_paragraph_with_doc_score_v2__doc_en": 0.95,
    f"{SET}__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en": 0.95,
    f"{SET}__char_length_with_paragraphs_v1__document": 500,
    f"{SET}__jigsaw_nsfw_document_v1____label__nsfw": 0.1,
    f"{SET}__gopher_v2__word_count": 120,
    f"{SET}__gopher_v2__symbol_to_word_ratio": 0.05,
    f"{SET}__c4_v2__line_bullets": 0.0,
    f"{SET}__c4_v2__phrase_repeat": 0.1,
}
CASES = {  # id: (changes to the passing scores (None: key missing, []: no span), bff spans)
    "ok": ({}, []),
    "cld2_missing": ({f"{SET}__cld2_en_paragraph_with_doc_score_v2__doc_en": None}, []),
    "cld2_empty": ({f"{SET}__cld2_en_paragraph_with_doc_score_v2__doc_en": []}, []),
    "bff_half": ({}, [[0, 10, 0.5]]),
    "ratio_eq": ({f"{SET}__gopher_v2__symbol_to_word_ratio": 0.1}, []),
    "bff_int": ({}, [[0, 10, 1]]),
    "bff_float": ({}, [[0, 10, 1.0]]),
    "cld2_low": ({f"{SET}__cld2_en_paragraph_with_doc_score_v2__doc_en": 0.5}, []),
    "ft_low": ({f"{SET}__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en": 0.5}, []),
    "short": ({f"{SET}__char_length_with_paragraphs_v1__document": 50}, []),
    "nsfw": ({f"{SET}__jigsaw_nsfw_document_v1____label__nsfw": 0.9}, []),
    "few_words": ({f"{SET}__gopher_v2__word_count": 10}, []),
    "symbols": ({f"{SET}__gopher_v2__symbol_to_word_ratio": 0.5}, []),
    "bullets": ({f"{SET}__c4_v2__line_bullets": 0.9}, []),
    "repeat": ({f"{SET}__c4_v2__phrase_repeat": 0.5}, []),
}
KEPT = ["ok", "cld2_missing", "cld2_empty", "bff_half", "ratio_eq"]


def write_validator_data(folder: Path) -> None:
    """One document file (in a sub-folder, as the config's ``**`` expects) per half of the cases, with both attribute sets."""
    names = list(CASES)
    for part, chunk in enumerate((names[: len(names) // 2], names[len(names) // 2 :])):
        documents, analysis, bff = [], [], []
        for name in chunk:
            text = f"Document {name} has enough words to read. Write to {EMAIL} for more.\nA second paragraph follows here."
            start = text.index(EMAIL)
            documents.append({"id": name, "text": text, "source": "dclm", "added": "2024-10-01", "metadata": {"url": f"https://example.org/{name}"}})
            scores, bff_spans = CASES[name]
            attributes = {key: [[0, len(text), value]] for key, value in {**PASSING, **scores}.items() if value is not None and value != []}
            attributes.update({key: [] for key, value in scores.items() if value == []})
            attributes[f"{SET}__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"] = [[start, start + len(EMAIL), 1.0]] if name == "ok" else []
            analysis.append({"id": name, "attributes": attributes})
            bff.append({"id": name, "attributes": {BFF: bff_spans}})
        for sub, rows in (("documents", documents), (f"attributes/{SET}", analysis), (f"attributes/{BFF}", bff)):
            path = folder / sub / "cc" / f"part-{part}.jsonl.gz"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode()))


@pytest.mark.parametrize("config, output", [("mixer-validator-jsonpath.yaml", "mixed-output"), ("mixer-validator-jq.yaml", "mixed-output-exclude-bff")])
def test_mixer_validator_runs_unchanged_with_the_documented_outcome(s3_server, conformance_folder, tmp_path, config, output):
    fresh(VALIDATOR_ROOT)
    write_validator_data(tmp_path / "validator")
    s3_server.upload(tmp_path / "validator", VALIDATOR_ROOT)

    ok(cli(["-c", f"tests/config/{config}", "mix"], conformance_folder))

    produced = outputs(f"{VALIDATOR_ROOT}/{output}")
    assert list(produced) == ["cc_tiny_subset-0000.jsonl.gz"]
    documents = [strip_provenance(document) for document in produced["cc_tiny_subset-0000.jsonl.gz"]]
    assert [document["id"] for document in documents] == KEPT
    assert all("attributes" not in document for document in documents), "discard_fields: attributes"
    ok_text = documents[0]["text"]
    assert EMAIL not in ok_text and f"Write to  |||EMAIL_ADDRESS|||  for more." in ok_text
    assert all(EMAIL in document["text"] for document in documents[1:]), "spans scoring under 0.5 are kept"
    for folder in ("input", "output"):  # the config's absolute work_dir: staged copies removed after use
        staging = Path("/tmp/cc_tiny_subset_mix") / folder
        assert staging.is_dir() and not [entry for entry in staging.iterdir() if entry.name.startswith("part-") or entry.name.startswith("cc_tiny")]
