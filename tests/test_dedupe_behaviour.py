"""dedupe semantics, upstream defects fixed, bad input, and resuming."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dedupe_helpers import flags, read_attributes, run, run_cli, write_corpus
from runtime_helpers import live_files
from dolma_sql.deduper import bloom_run
from dolma_sql.errors import ConfigError, InputError


def doc(i: int, text: str, url: str | None = None) -> dict:
    return {"id": f"d{i}", "text": text, "metadata": {"url": url or f"https://example.com/{i}"}}


CORPUS = {
    "a": [doc(0, "alpha\nbeta\ngamma"), doc(1, "beta\ndelta\nalpha"), doc(2, "")],
    "b": [doc(3, "gamma\nepsilon", url="https://example.com/0"), doc(4, "zeta\nbeta\n")],
    "c": [doc(5, "alpha\nomega"), doc(6, "eta\ntheta")],
}


def spans(result: dict, name: str = "dup") -> list:
    return [row["attributes"].get(name) for rows in result.values() for row in rows]


def test_paragraph_mode_marks_later_occurrences_in_file_then_line_order(tmp_path: Path) -> None:
    write_corpus(tmp_path, CORPUS)
    report = run(flags(tmp_path))
    assert spans(read_attributes(tmp_path)) == [
        [], [[0, 5, 1], [11, 16, 1]], None,  # "beta\n" and "alpha"; empty text -> no attribute at all
        [[0, 6, 1]], [[5, 9, 1]],  # "zeta\nbeta\n": "beta" excludes the final separator, the final "" is new
        [[0, 6, 1]], [],
    ]
    assert report.stats.documents == 7 and report.stats.marked_spans == 5


def test_document_mode_by_url(tmp_path: Path) -> None:
    write_corpus(tmp_path, {"a": [doc(0, "x", url="https://é.example/"), doc(1, "y", url="https://é.example/"), doc(2, "z", url="  ")]})
    run(flags(tmp_path, "--dedupe.skip_empty", paragraphs=False))
    rows = read_attributes(tmp_path)["a.jsonl.gz"]
    # span end is the key's length in code points (upstream: 19, its UTF-8 length); whitespace key skipped -> []
    assert rows == [{"attributes": {}, "id": "d0"}, {"attributes": {"dup": [[0, 18, 1]]}, "id": "d1"}, {"attributes": {"dup": []}, "id": "d2"}]


def test_min_words_does_not_disable_dedup(tmp_path: Path) -> None:
    """Upstream: with min_words > 0 nothing is ever inserted or marked."""
    write_corpus(tmp_path, {"a": [doc(0, "one two three\nhi"), doc(1, "one two three\nhi")]})
    run(flags(tmp_path, "--dedupe.min_words", "2"))
    assert spans(read_attributes(tmp_path)) == [[], [[0, 14, 1]]]  # "hi" has 1 word: skipped


def test_multi_character_separator_offsets(tmp_path: Path) -> None:
    """Upstream advances by 1 whatever the separator's length; offsets here cover the separator."""
    write_corpus(tmp_path, {"a": [doc(0, "c<>b"), doc(1, "c<>b")]})
    run(flags(tmp_path, "--dedupe.paragraphs.paragraph_separator", "<>"))
    assert spans(read_attributes(tmp_path)) == [[], [[0, 3, 1], [3, 4, 1]]]


def test_non_ascii_offsets_are_code_points(tmp_path: Path) -> None:
    write_corpus(tmp_path, {"a": [doc(0, "é\nπ\né"), doc(1, "é\nπ\né")]})
    run(flags(tmp_path))
    assert spans(read_attributes(tmp_path)) == [[[4, 5, 1]], [[0, 2, 1], [2, 4, 1], [4, 5, 1]]]  # upstream ends at 6


def test_same_output_whatever_the_number_of_processes(tmp_path: Path) -> None:
    files = {f"f{i}": [doc(i * 10 + j, f"shared {j % 3}\nown {i} {j}\nshared {(i + j) % 4}") for j in range(8)] for i in range(6)}
    results = []
    for processes in ("1", "3"):
        root = tmp_path / processes
        write_corpus(root, files)
        run(flags(root, "--processes", processes))
        results.append(read_attributes(root))
    assert results[0] == results[1]


def test_partitions_name_attributes_and_split_keys(tmp_path: Path) -> None:
    files = {"a": [doc(j, f"p{j % 5}\nq{j % 7}\nr{j}") for j in range(40)]}
    write_corpus(tmp_path, files)
    run(flags(tmp_path, bloom="whole.bin", name="whole"))
    whole = spans(read_attributes(tmp_path, "whole"))
    merged = [[] for _ in whole]
    for index in (0, 1):
        run(flags(tmp_path, "--dedupe.num_partitions", "2", "--dedupe.partition_index", str(index), bloom=f"p{index}.bin", name="part"))
        rows = read_attributes(tmp_path, f"part_{index}")["a.jsonl.gz"]
        assert all(set(row["attributes"]) == {f"dup_{index}"} for row in rows)
        for target, row in zip(merged, rows):
            target.extend(row["attributes"][f"dup_{index}"])
    assert [sorted(m) for m in merged] == whole


def test_rerun_skips_finished_files_instead_of_marking_everything(tmp_path: Path) -> None:
    write_corpus(tmp_path, CORPUS)
    run(flags(tmp_path))
    first = read_attributes(tmp_path)
    report = run(flags(tmp_path))
    assert report.stats.skipped_files == 3 and report.stats.files == 0
    assert read_attributes(tmp_path) == first


@pytest.mark.parametrize("checkpoint_seconds, resumed_from", [(0.0, 1), (1e9, 0)], ids=["after-checkpoint", "before-checkpoint"])
def test_killed_run_resumes_to_the_same_result(tmp_path: Path, monkeypatch, checkpoint_seconds: float, resumed_from: int) -> None:
    """Killed while writing the second file: the filter on disk is the last consistent checkpoint (after the
    first file, or none), so the rerun skips what it holds and redoes the rest, marking exactly what a clean run marks."""
    clean = tmp_path / "clean"
    write_corpus(clean, CORPUS)
    run(flags(clean))
    crashed = tmp_path / "crashed"
    write_corpus(crashed, CORPUS)
    checkpoints = ["--bloom_filter.checkpoint_seconds", str(checkpoint_seconds)]
    original = bloom_run.write_attributes

    def dies_on_second_file(job, *args, **kwargs):
        if job.path.endswith("b.jsonl.gz"):
            raise KeyboardInterrupt("killed")
        return original(job, *args, **kwargs)

    monkeypatch.setattr(bloom_run, "write_attributes", dies_on_second_file)
    with pytest.raises(KeyboardInterrupt):
        run(flags(crashed, *checkpoints))
    assert sorted(read_attributes(crashed)) == ["a.jsonl.gz"]
    monkeypatch.setattr(bloom_run, "write_attributes", original)
    report = run(flags(crashed, *checkpoints))
    assert report.stats.skipped_files == resumed_from and report.stats.files == 3 - resumed_from
    assert read_attributes(crashed) == read_attributes(clean)


def test_sigkilled_process_resumes_to_the_same_result(tmp_path: Path) -> None:
    """A real ``kill -9`` of the CLI once some attribute files exist, checkpointing after every file."""
    import signal
    import subprocess
    import sys
    import time

    files = {f"f{i}": [doc(i * 100 + j, f"shared {j % 7}\nown {i} {j}\nshared {(i * j) % 5}") for j in range(300)] for i in range(8)}
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    for root in (clean, killed):
        write_corpus(root, files)
    run(flags(clean))
    process = subprocess.Popen([sys.executable, "-P", "-m", "dolma_sql", "dedupe", *flags(killed, "--bloom_filter.checkpoint_seconds", "0")],
                               start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline and len(live_files(killed / "attributes", "*.jsonl.gz")) < 3:
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    run(flags(killed))
    assert read_attributes(killed) == read_attributes(clean)


def test_read_only_checks_against_the_filter_and_never_writes_it(tmp_path: Path) -> None:
    evaluation = tmp_path / "eval"
    write_corpus(evaluation, {"e": [doc(0, "leaked paragraph\nother")]})
    run(flags(evaluation, bloom="../filter.bin"))
    filter_file = tmp_path / "filter.bin"
    before = (filter_file.read_bytes(), os.stat(filter_file).st_mtime_ns)
    train = tmp_path / "train"
    write_corpus(train, {"t": [doc(1, "fresh\nleaked paragraph"), doc(2, "fresh")]})
    run(flags(train, "--bloom_filter.read_only", bloom="../filter.bin"))
    # matched against the filter; "fresh" repeated inside train is not inserted, so not marked
    assert spans(read_attributes(train)) == [[[6, 22, 1]], []]
    assert (filter_file.read_bytes(), os.stat(filter_file).st_mtime_ns) == before


def test_read_only_filter_that_does_not_exist(tmp_path: Path) -> None:
    write_corpus(tmp_path, CORPUS)
    with pytest.raises(ConfigError, match="read_only is set but .* does not exist"):
        run(flags(tmp_path, "--bloom_filter.read_only"))
    assert not (tmp_path / "filter.bin").exists()


def test_corrupt_or_foreign_filter_file_via_cli(tmp_path: Path) -> None:
    write_corpus(tmp_path, CORPUS)
    (tmp_path / "filter.bin").write_bytes(b"\x17\xf1\xf0\x81" + b"\x00" * 100)
    result = run_cli(flags(tmp_path))
    assert result.returncode == 1 and "written by upstream dolma" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "filter.bin").write_bytes(b"garbage" * 10)
    result = run_cli(flags(tmp_path))
    assert result.returncode == 1 and "bad magic" in result.stderr


def test_key_missing_in_some_documents_names_the_line(tmp_path: Path) -> None:
    write_corpus(tmp_path, {"a": [doc(0, "x"), {"id": "d1", "text": "y", "metadata": {}}]})
    with pytest.raises(InputError) as error:
        run(flags(tmp_path, paragraphs=False))
    assert error.value.line == 2 and error.value.path.endswith("a.jsonl.gz")
    assert "metadata.url" in error.value.message and "metadata.url" in error.value.hint


def test_non_string_key_names_the_line(tmp_path: Path) -> None:
    write_corpus(tmp_path, {"a": [doc(0, "x"), doc(1, "y"), {"id": "d2", "text": 5}]})
    with pytest.raises(InputError) as error:
        run(flags(tmp_path))
    assert error.value.line == 3 and "no string field 'text'" in error.value.message


def test_malformed_line_names_the_line(tmp_path: Path) -> None:
    write_corpus(tmp_path, {"a": [doc(0, "x"), '{"id": "d1", "text": "unterminated']})
    with pytest.raises(InputError) as error:
        run(flags(tmp_path))
    assert error.value.line == 2 and "malformed JSON" in error.value.message


def test_numeric_and_missing_ids_are_kept_as_json(tmp_path: Path) -> None:
    write_corpus(tmp_path, {"a": [{"id": 7, "text": "x"}, {"text": "x"}, {"id": 'q"uote', "text": "y"}]})
    run(flags(tmp_path))
    assert [row["id"] for row in read_attributes(tmp_path)["a.jsonl.gz"]] == [7, None, 'q"uote']


def test_dolma_documented_invocation(tmp_path: Path) -> None:
    write_corpus(tmp_path, CORPUS)
    result = run_cli([
        "--documents", "documents/*.jsonl.gz", "--dedupe.paragraphs.attribute_name", "bff_duplicate_paragraph_spans",
        "--dedupe.skip_empty", "--bloom_filter.file", "f.bin", "--no-bloom_filter.read_only",
        "--bloom_filter.estimated_doc_count", "6_000_000", "--bloom_filter.desired_false_positive_rate", "0.0001",
        "--processes", "2", "--report", "report.json",
    ], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "attributes/bff_duplicate_paragraph_spans/a.jsonl.gz").exists()
    import json

    report = json.loads((tmp_path / "report.json").read_text())
    assert report["documents"] == 7 and report["marked_spans"] == 5 and 0 < report["fill_ratio"] < 1


def test_size_in_bytes_without_a_count(tmp_path: Path) -> None:
    write_corpus(tmp_path, CORPUS)
    run(["--documents", str(tmp_path / "documents/*.jsonl.gz"), "--dedupe.paragraphs.attribute_name", "dup", "--dedupe.name", "dd",
         "--bloom_filter.file", str(tmp_path / "f.bin"), "--no-bloom_filter.read_only", "--bloom_filter.size_in_bytes", "65536"])
    assert spans(read_attributes(tmp_path))[1] == [[0, 5, 1], [11, 16, 1]]


def test_missing_mode_and_missing_read_only_are_config_errors(tmp_path: Path) -> None:
    write_corpus(tmp_path, CORPUS)
    with pytest.raises(ConfigError, match="either dedupe.documents or dedupe.paragraphs"):
        run(["--documents", str(tmp_path / "documents/*.jsonl.gz"), "--dedupe.name", "x", "--bloom_filter.file", "f", "--no-bloom_filter.read_only"])
    with pytest.raises(ConfigError, match="read_only is required"):
        run(["--documents", str(tmp_path / "documents/*.jsonl.gz"), "--dedupe.paragraphs.attribute_name", "x", "--bloom_filter.file", "f"])


PARAGRAPHS = ["", " ", "alpha", "beta gamma", "é ü", "日本語", "alpha ", "x" * 40]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.lists(st.sampled_from(PARAGRAPHS), min_size=1, max_size=5), min_size=1, max_size=6), min_size=1, max_size=3))
def test_every_repeated_paragraph_is_marked(tmp_path_factory, corpus: list[list[list[str]]]) -> None:
    """End to end, across files and batches: a paragraph seen before is always marked (no false negative),
    and at a 1e-9 false-positive rate nothing else is."""
    root = tmp_path_factory.mktemp("property")
    files = {f"f{i}": [doc(j, "\n".join(paragraphs)) for j, paragraphs in enumerate(docs)] for i, docs in enumerate(corpus)}
    write_corpus(root, files)
    run(flags(root))
    got = spans(read_attributes(root))
    seen: set[str] = set()
    expected = []
    for docs in corpus:
        for paragraphs in docs:
            text = "\n".join(paragraphs)
            if not text:  # no attribute, nothing inserted
                expected.append(None)
                continue
            marks, offset = [], 0
            for index, paragraph in enumerate(paragraphs):
                start = offset
                offset += len(paragraph) + (1 if offset + len(paragraph) + 1 < len(text) else 0)
                if paragraph in seen:
                    marks.append([start, offset, 1])
                seen.add(paragraph)
            expected.append(marks)
    assert got == expected


def test_options_a_then_b_then_a_again_end_with_as_output_and_a_changed_file_is_done_again(tmp_path: Path) -> None:
    """Each run's filter file is its own; the attribute files' records name the options and the document file's version."""
    write_corpus(tmp_path, CORPUS)
    options_a = flags(tmp_path, bloom="a.bin")
    options_b = flags(tmp_path, "--dedupe.min_length", "5", bloom="b.bin")
    run(options_a)
    fresh_a = read_attributes(tmp_path)
    run(options_b)
    assert read_attributes(tmp_path) != fresh_a
    (tmp_path / "a.bin").unlink()
    run(options_a)
    assert read_attributes(tmp_path) == fresh_a
    write_corpus(tmp_path, {"c": [doc(5, "alpha\nomega"), doc(6, "eta\ntheta"), doc(7, "iota")]})  # a new version of c
    run(options_a)
    assert [row["id"] for row in read_attributes(tmp_path)["c.jsonl.gz"]] == ["d5", "d6", "d7"], "c is done again, a and b are kept"


@pytest.mark.parametrize("mode", [[], ["--dedupe.mode", "exact"]], ids=["bloom", "exact"])
def test_a_run_holds_the_attribute_folders_lock_from_start_to_end(tmp_path: Path, mode: list[str]) -> None:
    """Another run writing there (a live process holds the lock) stops this one before it writes anything."""
    import os

    import msgspec

    from dolma_sql.errors import OutputError
    from dolma_sql.runtime.lock import Holder

    write_corpus(tmp_path, CORPUS)
    lock = tmp_path / "attributes" / "dd" / ".dolma-sql" / "dedupe.lock"
    lock.parent.mkdir(parents=True)
    lock.write_bytes(msgspec.json.encode(msgspec.structs.replace(Holder.this_process("dedupe"), pid=os.getppid(), process_start=None)))
    with pytest.raises(OutputError, match="another dedupe run is writing into this folder"):
        run(flags(tmp_path, *mode, bloom=None if mode else "filter.bin"))
    assert sorted(path.name for path in (tmp_path / "attributes" / "dd").rglob("*")) == [".dolma-sql", "dedupe.lock"]
