"""Minhash mode (``dedupe.minhash``) on small corpora: planted identical and near-duplicate documents are
found and nothing else, the keep policy (first, highest or lowest of a field or an attribute, ties by file
and line), the cluster attributes, the lineage table, deduplicating against an existing signature index with
its real ids, normalisation and shingling options, and bad configs."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from minhash_helpers import (
    attribute_rows,
    document_rows,
    edited,
    lineage,
    minhash_config,
    planted_corpus,
    random_text,
    removed_ids,
    run_minhash,
    write_files,
)

from dolma_sql.errors import ConfigError, InputError
from dolma_sql.runtime import SerialExecutor


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("minhash-planted")
    copies = planted_corpus(root)
    report = run_minhash(minhash_config(root), SerialExecutor(shuffle=3))
    return root, copies, report


def positions(root: Path) -> dict[str, tuple[str, int]]:
    """Each document id -> (documents file, line)."""
    return {row["id"]: (str(root / "documents" / name), line) for name, rows in document_rows(root).items() for line, row in enumerate(rows, start=1)}


def test_planted_duplicates_are_removed_and_nothing_else(planted) -> None:
    root, copies, report = planted
    where = positions(root)
    # in each pair the document first by (file, line) is kept
    expected = {max(copy, original, key=lambda i: where[i]) for copy, original in copies.items()}
    assert removed_ids(root) == expected
    assert report.stats.marked_documents == len(expected) == report.minhash["removed_documents"]
    assert report.minhash["clusters"] == len(copies) and report.minhash["cluster_sizes"] == {"2": len(copies)}
    assert report.minhash["fraction_removed"] == pytest.approx(len(expected) / report.stats.documents)
    assert set(report.minhash["stage_seconds"]) == {"signatures", "lsh", "clusters", "outputs"}


def test_attribute_files_are_line_aligned_with_cluster_attributes(planted) -> None:
    root, copies, _ = planted
    documents = document_rows(root)
    attributes = attribute_rows(root)
    assert documents.keys() == attributes.keys()
    order = [doc["id"] for rows in documents.values() for doc in rows]
    pair_of = {**{c: (c, o) for c, o in copies.items()}, **{o: (c, o) for c, o in copies.items()}}
    for name, rows in documents.items():
        assert [row["id"] for row in attributes[name]] == [doc["id"] for doc in rows]
        for doc, row in zip(rows, attributes[name]):
            spans = row["attributes"]
            if doc["id"] not in pair_of:
                assert spans == {}
                continue
            length = len(doc["text"])
            cluster = min(order.index(i) for i in pair_of[doc["id"]])  # the smallest document number of the pair
            assert spans["near_cluster_id"] == [[0, length, cluster]]
            assert spans["near_cluster_size"] == [[0, length, 2]]
            assert spans.get("near", [[0, length, 1]]) == [[0, length, 1]]


def test_lineage_names_the_kept_document(planted) -> None:
    root, copies, report = planted
    where = positions(root)
    rows = lineage(Path(report.lineage))
    assert [(row["duplicate_file"], row["duplicate_line"]) for row in rows] == sorted((row["duplicate_file"], row["duplicate_line"]) for row in rows)
    for row in rows:
        kept, removed = row["kept_id"], row["duplicate_id"]
        assert {kept, removed} in ({c, o} for c, o in copies.items())
        assert (row["duplicate_file"], row["duplicate_line"]) == where[removed] and (row["kept_file"], row["kept_line"]) == where[kept]
        assert row["cluster_size"] == 2
        edits = int(max(kept, removed, key=lambda i: i.startswith("c"))[1:]) % 2
        assert row["similarity"] == 1.0 if edits == 0 else 0.6 < row["similarity"] < 1.0


def test_keep_policy_by_field_and_attribute_with_ties(tmp_path: Path) -> None:
    rng = random.Random(5)
    base = random_text(rng)
    copies = [{"id": f"d{index}", "text": edited(rng, base, 1 if index else 0), "metadata": {"quality": quality}}
              for index, quality in enumerate([0.2, 0.9, 0.5, 0.9, None])]  # fmt: skip
    write_files(tmp_path, {"a": copies[:2] + [{"id": "x", "text": random_text(rng)}], "b": copies[2:]})
    by_field = {"by": "highest", "field": "metadata.quality"}
    report = run_minhash(minhash_config(tmp_path, keep=by_field))
    assert {row["kept_id"] for row in lineage(Path(report.lineage))} == {"d1"}  # 0.9 twice: d1 is first by (file, line)
    assert removed_ids(tmp_path) == {"d0", "d2", "d3", "d4"}
    run_minhash(minhash_config(tmp_path, keep={"by": "lowest", "field": "metadata.quality"}))
    assert removed_ids(tmp_path) == {"d1", "d2", "d3", "d4"}  # a missing value is never preferred
    # an attribute of another set: the score of the key's first span
    for name, scores in {"a": [3, 1, 0], "b": [7, 7, 2]}.items():
        folder = tmp_path / "attributes" / "quality"
        folder.mkdir(parents=True, exist_ok=True)
        with gzip.open(folder / f"{name}.jsonl.gz", "wt") as handle:
            handle.writelines(json.dumps({"id": "?", "attributes": {"score": [[0, 1, s]]}}) + "\n" for s in scores)
    report = run_minhash(minhash_config(tmp_path, keep={"by": "highest", "attribute": "quality/score"}))
    assert removed_ids(tmp_path) == {"d0", "d1", "d3", "d4"}  # d2 (file b, line 1) before d3 (line 2), both 7


def test_against_an_existing_index_keeps_its_documents_and_names_their_ids(tmp_path: Path) -> None:
    rng = random.Random(11)
    old = [{"id": f"old{index}", "text": random_text(rng)} for index in range(20)]
    write_files(tmp_path / "old", {"o": old})
    index = tmp_path / "index"
    run_minhash(minhash_config(tmp_path / "old", index=str(index)))
    assert removed_ids(tmp_path / "old") == set()
    new = [{"id": "n-dup", "text": edited(rng, old[7]["text"], 1)}, {"id": "n-new", "text": random_text(rng)},
           {"id": "n-same", "text": old[7]["text"]}, {"id": "n-other", "text": old[3]["text"]}]  # fmt: skip
    write_files(tmp_path / "new", {"n": new})
    report = run_minhash(minhash_config(tmp_path / "new", against=[str(index)]))
    assert removed_ids(tmp_path / "new") == {"n-dup", "n-same", "n-other"}
    old_file = str(tmp_path / "old" / "documents" / "o.jsonl.gz")
    rows = {row["duplicate_id"]: row for row in lineage(Path(report.lineage))}
    assert {key: (row["kept_id"], row["kept_file"], row["kept_line"], row["cluster_id"], row["cluster_size"]) for key, row in rows.items()} == {
        "n-dup": ("old7", old_file, 8, 7, 3), "n-same": ("old7", old_file, 8, 7, 3), "n-other": ("old3", old_file, 4, 3, 2),
    }  # fmt: skip
    assert report.stats.documents == 4 and report.minhash["clusters"] == 2
    # an index made with other parameters is refused, naming the option
    with pytest.raises(ConfigError, match="other parameters") as error:
        run_minhash(minhash_config(tmp_path / "new", against=[str(index)], ngram_length=3))
    assert error.value.path == "dedupe.minhash.against[0]"
    with pytest.raises(ConfigError, match="no signature index"):
        run_minhash(minhash_config(tmp_path / "new", against=[str(tmp_path / "nothing")]))


@pytest.mark.parametrize(
    ("first", "second", "options", "same"),
    [
        ("Hello, World! " * 3 + "the end", "hello world " * 3 + "THE END.", {}, True),
        ("Hello, World! " * 3 + "the end", "hello world " * 3 + "THE END.", {"normalize": {"lowercase": False}}, False),
        ("a-b c-d e-f g-h i-j", "a b c d e f g h i j", {}, True),
        ("a-b c-d e-f g-h i-j", "a b c d e f g h i j", {"normalize": {"punctuation": False}}, False),
        ("ﬁnd the ＡＢＣ now", "find the abc now", {}, True),
        ("ﬁnd the ＡＢＣ now", "find the abc now", {"normalize": {"nfkc": False}}, False),
        ("in 1999 and 2024 it", "in 2001 and 7 it", {"normalize": {"digits": True}}, True),
        ("in 1999 and 2024 it", "in 2001 and 7 it", {}, False),
        ("one  two\tthree\n four five six", "one two three four five six", {}, True),
        ("abcdefgh", "abcxefgh", {"shingle": "chars", "ngram_length": 3}, False),
        ("ab cd  ef", "ab cd ef", {"shingle": "chars", "ngram_length": 3}, True),
    ],
)
def test_normalisation_options(tmp_path: Path, first: str, second: str, options: dict, same: bool) -> None:
    rng = random.Random(2)
    write_files(tmp_path, {"a": [{"id": "1", "text": first}, {"id": "x", "text": random_text(rng)}, {"id": "2", "text": second}]})
    run_minhash(minhash_config(tmp_path, **options))
    assert removed_ids(tmp_path) == ({"2"} if same else set())


def test_empty_documents_are_never_duplicates_and_short_ones_are_one_shingle(tmp_path: Path) -> None:
    write_files(tmp_path, {"a": [{"id": i, "text": t} for i, t in enumerate(["", "  ", "short one", "Short ONE!", "short two", ""])], "b": []})
    report = run_minhash(minhash_config(tmp_path))
    assert report.stats.files == 2 and attribute_rows(tmp_path)["b.jsonl.gz"] == []
    rows = attribute_rows(tmp_path)["a.jsonl.gz"]
    assert [row["id"] for row in rows] == [0, 1, 2, 3, 4, 5]
    assert [("near" in row["attributes"]) for row in rows] == [False, False, False, True, False, False]


def test_threshold_drops_candidates_below_it(tmp_path: Path) -> None:
    rng = random.Random(8)
    base = random_text(rng, 200)
    write_files(tmp_path, {"a": [{"id": "a", "text": base}, {"id": "same", "text": base}, {"id": "edited", "text": edited(rng, base, 6)}]})
    run_minhash(minhash_config(tmp_path))
    assert removed_ids(tmp_path) == {"same", "edited"}
    run_minhash(minhash_config(tmp_path, threshold=0.99))
    assert removed_ids(tmp_path) == {"same"}


@pytest.mark.parametrize(
    ("minhash", "dedupe", "match"),
    [
        ({"num_bands": 0}, {}, "must be >= 1"),
        ({"ngram_length": 0}, {}, "must be >= 1"),
        ({"threshold": 1.5}, {}, r"must be in \(0, 1\]"),
        ({"keep": {"by": "highest"}}, {}, "needs exactly one of keep.field and keep.attribute"),
        ({"keep": {"field": "metadata.q"}}, {}, "needs keep.by highest or lowest"),
        ({"keep": {"by": "lowest", "attribute": "noslash"}}, {}, "not <attribute set>/<key>"),
        ({"keep": {"by": "lowest", "field": "a..b"}}, {}, "not a dotted field name"),
        ({}, {"mode": "exact"}, "its own mode"),
        ({}, {"num_partitions": 2}, "not partitioned"),
        ({}, {"paragraphs": {"attribute_name": "p"}}, "exactly one"),
        ({"shingle": "bytes"}, {}, "Invalid enum value .bytes."),
    ],
)
def test_bad_configs_are_config_errors(tmp_path: Path, minhash: dict, dedupe: dict, match: str) -> None:
    config = minhash_config(tmp_path)
    config["dedupe"]["minhash"].update(minhash)
    config["dedupe"].update(dedupe)
    with pytest.raises(ConfigError, match=match):
        run_minhash(config)


def test_mode_minhash_without_its_section(tmp_path: Path) -> None:
    config = {"documents": [f"{tmp_path}/documents/*.gz"], "dedupe": {"mode": "minhash", "documents": {"attribute_name": "a", "key": "$.id"}}}
    with pytest.raises(ConfigError, match="needs the dedupe.minhash section"):
        run_minhash(config)


def test_keep_attribute_files_must_be_line_aligned(tmp_path: Path) -> None:
    write_files(tmp_path, {"a": [{"id": "1", "text": "x y"}, {"id": "2", "text": "x y"}]})
    folder = tmp_path / "attributes" / "q"
    folder.mkdir(parents=True)
    with gzip.open(folder / "a.jsonl.gz", "wt") as handle:
        handle.write(json.dumps({"id": "1", "attributes": {"s": [[0, 1, 1.0]]}}) + "\n")
    with pytest.raises(InputError, match="has 1 lines, its documents file .* has more than 1"):
        run_minhash(minhash_config(tmp_path, keep={"by": "highest", "attribute": "q/s"}))
    with pytest.raises(InputError, match="attribute file that dedupe.minhash.keep.attribute names is missing") as error:
        run_minhash(minhash_config(tmp_path, keep={"by": "highest", "attribute": "other/s"}))
    assert error.value.path == str(tmp_path / "attributes" / "other" / "a.jsonl.gz")


def test_a_rerun_with_an_index_signs_only_new_or_changed_files(tmp_path: Path, monkeypatch) -> None:
    from dolma_sql.deduper import minhash_run
    from dolma_sql.deduper.minhash_sign import sign_file

    planted_corpus(tmp_path, originals=20, copies=5, files=3)
    config = minhash_config(tmp_path, index=str(tmp_path / "index"))
    first = run_minhash(config)
    signed = []

    def counted(unit):
        signed.append(unit.path)
        return sign_file(unit)

    monkeypatch.setattr(minhash_run, "sign_file", counted)
    again = run_minhash(config)
    assert signed == [] and again.minhash["removed_documents"] == first.minhash["removed_documents"] == 5
    write_files(tmp_path, {"part-3": [{"id": "late", "text": "a late document of its own " * 3}]})
    run_minhash(config)
    assert signed == [str(tmp_path / "documents" / "part-3.jsonl.gz")]
    manifest = json.loads((tmp_path / "index" / "index.json").read_text())
    assert [Path(entry["path"]).name for entry in manifest["files"]] == [f"part-{index}.jsonl.gz" for index in range(4)]
    assert sum(entry["documents"] for entry in manifest["files"]) == 26


def test_a_finished_run_is_kept_with_its_report(tmp_path: Path, monkeypatch) -> None:
    """Running a finished MinHash run again signs and clusters nothing and reports the earlier figures; an
    added input file redoes it."""
    from dolma_sql.deduper import minhash_run

    planted_corpus(tmp_path, originals=20, copies=5, files=2)
    config = minhash_config(tmp_path)
    first = run_minhash(config)
    monkeypatch.setattr(minhash_run, "run_minhash", lambda *args, **kwargs: pytest.fail("run again"))
    again = run_minhash(config)
    assert again.minhash["removed_documents"] == first.minhash["removed_documents"] == 5
    assert (again.stats.files, again.stats.skipped_files, again.stats.documents) == (0, 2, 25)
    monkeypatch.undo()
    write_files(tmp_path, {"part-2": [{"id": "late", "text": "a late document of its own " * 3}]})
    assert run_minhash(config).stats.documents == 26


def test_a_keep_field_that_no_document_has_is_warned_about(tmp_path: Path, capsys) -> None:
    """A misspelled keep.field gives every document no value, which keeps each cluster's first document: said once."""
    planted_corpus(tmp_path, originals=20, copies=5, files=2)
    run_minhash(minhash_config(tmp_path, keep={"by": "highest", "field": "metadata.nope"}))
    said = " ".join(capsys.readouterr().err.split())
    assert "dedupe.minhash.keep.field 'metadata.nope' has no number in any document" in said


def test_a_minhash_rerun_after_another_mode_rewrote_its_files_writes_its_own_again(tmp_path: Path) -> None:
    from dedupe_helpers import flags, run

    planted_corpus(tmp_path, originals=20, copies=5, files=2)
    config = minhash_config(tmp_path)
    run_minhash(config)
    first = attribute_rows(tmp_path)
    run([*flags(tmp_path, "--dedupe.mode", "exact", bloom=None, name="mh"), "--processes", "1"])
    assert attribute_rows(tmp_path) != first
    assert run_minhash(config).stats.files == 2 and attribute_rows(tmp_path) == first


def test_a_rerun_redoes_a_run_whose_signature_index_lost_its_tables(tmp_path: Path) -> None:
    import shutil

    planted_corpus(tmp_path, originals=20, copies=5, files=2)
    config = minhash_config(tmp_path, index=str(tmp_path / "index"))
    run_minhash(config)
    assert run_minhash(config).stats.skipped_files == 2
    shutil.rmtree(tmp_path / "index" / "signatures")
    assert run_minhash(config).stats.files == 2 and any((tmp_path / "index" / "signatures").rglob("*.parquet"))
