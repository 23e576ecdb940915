"""``dolma-sql tokens``: differential tests against upstream dolma 1.2.1, determinism, layout, and bad input."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import run_oracle
from dolma_sql.errors import ConfigError, DolmaSqlError, InputError
from dolma_sql.tokenizer import iter_documents, tokens_stats
from runtime_helpers import cli_command, run_cli
from tokens_helpers import EDGE_DOCS, GPT_NEO, LLAMA, TOKENIZERS, tokens, write_corpus

PROVIDED = "tests/data/provided/documents/000.json.gz"


def documents_by_location(destination: Path) -> dict[tuple[str, int], tuple[str, list[int]]]:
    """``(src file name, loc) -> (id, tokens)``, checking that each memmap's csv rows tile it exactly."""
    found = {}
    for npy, documents in memmaps(destination).items():
        end = 0
        for document in documents:
            assert document.start == end, f"{npy}: rows must tile the memmap"
            end = document.end
            key = (os.path.basename(document.src), document.loc)
            assert key not in found, f"document {key} written twice"
            found[key] = (document.id, document.tokens.tolist())
        assert os.path.getsize(npy) == end * documents[0].tokens.dtype.itemsize, f"{npy} holds more than its rows index"
    return found


def memmaps(destination: Path) -> dict[str, list]:
    """Documents of each memmap, in row order."""
    result: dict[str, list] = {}
    for document in iter_documents(str(destination)):
        result.setdefault(document.memmap, []).append(document)
    return result


def layout(destination: Path) -> list[tuple[str, int]]:
    """File names with the bytes per token (the raw memmaps have no header, so the reader infers it from the csv)."""
    names = [(os.path.basename(npy), documents[0].tokens.dtype.itemsize) for npy, documents in memmaps(destination).items()]
    assert sorted(p.name for p in destination.glob("part-*.csv.gz")) == sorted(name[: -len(".npy")] + ".csv.gz" for name, _ in names)
    return names


def expected_tokens(text: str, tokenizer_file: Path, bos: int | None, eos: int | None) -> list[int]:
    """dolma's document encoding, computed independently of dolma-sql's batch kernels."""
    from tokenizers import Tokenizer

    ids = Tokenizer.from_file(str(tokenizer_file)).encode(text.strip(), add_special_tokens=False).ids
    if ids and bos is not None and ids[0] != bos:
        ids.insert(0, bos)
    if ids and eos is not None and ids[-1] != eos:
        ids.append(eos)
    return ids


# ---------------------------------------------------------------------------------------------- corpora

@pytest.fixture(scope="session")
def mixed_corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("tokens-corpus"))


# ---------------------------------------------------------------------------------------------- differential


@pytest.mark.oracle
@pytest.mark.parametrize(
    "tokenizer,extra",
    [
        pytest.param(GPT_NEO, [], id="gpt-neo"),
        pytest.param(LLAMA, [], id="llama"),
        pytest.param(LLAMA, ["--tokenizer.segment_before_tokenization"], id="llama-segmented"),
    ],
)
def test_conformance_documents_match_upstream(conformance, oracle, tmp_path, tokenizer, extra):
    """The contract §7 command: same tokens per document, same file names, same dtype and sizes."""
    args = ["--documents", PROVIDED, *tokenizer, *extra, "--processes", "1"]
    run_oracle(oracle, ["tokens", *args, "--destination", str(tmp_path / "upstream")], cwd=conformance)
    os.chdir(conformance)
    tokens([*args, "--destination", str(tmp_path / "ours")])
    upstream, ours = documents_by_location(tmp_path / "upstream"), documents_by_location(tmp_path / "ours")
    assert ours == upstream
    assert layout(tmp_path / "ours") == layout(tmp_path / "upstream")
    for name, _ in layout(tmp_path / "ours"):
        assert os.path.getsize(tmp_path / "ours" / name) == os.path.getsize(tmp_path / "upstream" / name)
    if tokenizer is GPT_NEO:
        assert os.path.getsize(tmp_path / "ours" / "part-0-00000.npy") == 28_816  # contract §7


@pytest.mark.oracle
@pytest.mark.parametrize("tokenizer", [GPT_NEO, LLAMA], ids=["gpt-neo", "llama"])
def test_generated_corpus_matches_upstream(mixed_corpus, oracle, tmp_path, tokenizer):
    """gencorpus documents plus edge cases (empty, blank, special-token literals, non-NFC), 2 writers."""
    args = ["--documents", str(mixed_corpus / "documents" / "*.jsonl.gz"), *tokenizer, "--processes", "2", "--batch_size", "50"]
    run_oracle(oracle, ["tokens", *args, "--destination", str(tmp_path / "upstream")], cwd=tmp_path)
    tokens([*args, "--destination", str(tmp_path / "ours")])
    upstream, ours = documents_by_location(tmp_path / "upstream"), documents_by_location(tmp_path / "ours")
    assert set(ours) == set(upstream)
    for key in upstream:
        assert ours[key] == upstream[key], f"document {key} differs"
    assert layout(tmp_path / "ours") == layout(tmp_path / "upstream") == [
        ("part-0-00000.npy", 2),
        ("part-1-00000.npy", 2),
    ]
    ids = {doc_id for doc_id, _ in ours.values()}
    assert {"plain", "padded", "special", "decomposed", "unicode", 'comma,quote"id'} <= ids
    assert not {"empty", "blank", "ws-only-unicode"} & ids  # empty after strip: skipped, as dolma does


# ---------------------------------------------------------------------------------------------- behaviour


def test_tokens_equal_the_tokenizer_with_bos_and_eos(mixed_corpus, tmp_path):
    """Independent of upstream: each document is [bos] + encode(text.strip()) + [eos]."""
    tokenizer_file = TOKENIZERS / "llama-test-tokenizer.json"
    edge = mixed_corpus / "documents" / "edge.jsonl.gz"
    tokens(["--documents", str(edge), *LLAMA, "--destination", str(tmp_path / "out")])
    by_id = {document.id: document.tokens.tolist() for document in iter_documents(str(tmp_path / "out"))}
    texts = {doc["id"]: doc["text"] for doc in EDGE_DOCS}
    for doc_id, ids in by_id.items():
        assert ids == expected_tokens(texts[doc_id], tokenizer_file, 1, 2)
        assert ids[0] == 1 and ids[-1] == 2
    assert set(by_id) == {doc["id"] for doc in EDGE_DOCS if doc["text"].strip()}


def test_same_seed_gives_identical_bytes(mixed_corpus, tmp_path):
    args = ["--documents", str(mixed_corpus / "documents" / "*.jsonl.gz"), *GPT_NEO, "--batch_size", "64", "--ring_size", "3"]
    for name in ("a", "b"):
        tokens([*args, "--destination", str(tmp_path / name)])
    tokens([*args, "--seed", "1", "--destination", str(tmp_path / "c")])
    names = sorted(p.name for p in (tmp_path / "a").glob("part-*"))
    assert names == sorted(p.name for p in (tmp_path / "b").glob("part-*"))
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    # another seed: another order, the same documents
    assert (tmp_path / "a" / "part-0-00000.npy").read_bytes() != (tmp_path / "c" / "part-0-00000.npy").read_bytes()
    assert documents_by_location(tmp_path / "a") == documents_by_location(tmp_path / "c")


def test_ring_interleaves_files_and_batches_are_shuffled(mixed_corpus, tmp_path):
    """ring_size files are read round-robin: the first batch mixes several files; sample_ring_prop works too."""
    glob = str(mixed_corpus / "documents" / "part-*.jsonl.gz")
    tokens(["--documents", glob, *GPT_NEO, "--batch_size", "40", "--ring_size", "4", "--destination", str(tmp_path / "rr")])
    first = [d for d in iter_documents(str(tmp_path / "rr"))][:40]
    assert len({d.src for d in first}) == 4
    assert [d.loc for d in first if d.src == first[0].src] != sorted(d.loc for d in first if d.src == first[0].src)
    tokens(["--documents", glob, *GPT_NEO, "--sample_ring_prop", "--destination", str(tmp_path / "prop")])
    assert documents_by_location(tmp_path / "prop") == documents_by_location(tmp_path / "rr")


def test_files_per_process_makes_more_groups(mixed_corpus, tmp_path):
    """dolma's grouping: files_per_process=2 over 5 files gives 3 groups, named with one digit."""
    tokens(["--documents", str(mixed_corpus / "documents" / "*.jsonl.gz"), *GPT_NEO, "--files_per_process", "2", "--destination", str(tmp_path / "out")])
    assert sorted(p.name for p in (tmp_path / "out").glob("*.npy")) == ["part-0-00000.npy", "part-1-00000.npy", "part-2-00000.npy"]


def test_max_size_counts_tokens_and_long_documents_get_their_own_memmap(conformance, tmp_path):
    """Upstream loops forever on a document of >= max_size tokens (4983-token doc, max_size 4000)."""
    os.chdir(conformance)
    tokens(["--documents", PROVIDED, *LLAMA, "--max_size", "4000", "--destination", str(tmp_path / "small")])
    tokens(["--documents", PROVIDED, *LLAMA, "--destination", str(tmp_path / "whole")])
    small = memmaps(tmp_path / "small")
    assert len(small) > 1
    for npy, docs in small.items():
        size = sum(len(d.tokens) for d in docs)
        assert size < 4000 or len(docs) == 1, f"{npy}: {size} tokens in {len(docs)} documents"
    assert any(len(d.tokens) >= 4000 for d in iter_documents(str(tmp_path / "small")))
    assert documents_by_location(tmp_path / "small") == documents_by_location(tmp_path / "whole")


def test_missing_id_field_name_synthesises_ids(conformance, tmp_path):
    """``fields.id_field_name: null`` (a config file, as in dolma) names documents ``sha256(path)-line``."""
    os.chdir(conformance)
    (tmp_path / "c.yaml").write_text("fields:\n  id_field_name: null\n")
    tokens(["--documents", PROVIDED, *GPT_NEO, "--destination", str(tmp_path / "out")], config_file=str(tmp_path / "c.yaml"))
    digest = hashlib.sha256(PROVIDED.encode()).hexdigest()
    assert sorted(d.id for d in iter_documents(str(tmp_path / "out"))) == sorted(f"{digest}-{d.loc}" for d in iter_documents(str(tmp_path / "out")))


def test_stats_and_reader(conformance, tmp_path):
    os.chdir(conformance)
    tokens(["--documents", PROVIDED, *GPT_NEO, "--destination", str(tmp_path / "out")])
    stats = tokens_stats(str(tmp_path / "out"))
    assert stats["documents"] == 10 and stats["tokens"] == 28_816 // 2 and stats["memmaps"] == 1
    assert stats["sources"] == {PROVIDED: {"documents": 10, "tokens": 14_408}}
    result = run_cli(["tokens", "--stats", str(tmp_path / "out")], conformance)
    assert result.returncode == 0, result.stderr
    assert "14,408" in result.stdout + result.stderr


def test_cli_with_config_file_and_dryrun(conformance, tmp_path):
    """dolma's `-c config.yaml tokens` form, flags overriding the file; --dryrun writes nothing."""
    config = tmp_path / "tokens.yaml"
    config.write_text(
        "documents: [tests/data/provided/documents/000.json.gz]\n"
        f"destination: {tmp_path / 'out'}\n"
        f"tokenizer:\n  name_or_path: {TOKENIZERS / 'gpt-neo-test-tokenizer.json'}\n  eos_token_id: 50279\n"
        "processes: 1\n"
    )
    result = run_cli(["-c", str(config), "tokens", "--dryrun"], conformance)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "out").exists()
    result = run_cli(["-c", str(config), "tokens", "--processes", "2"], conformance)
    assert result.returncode == 0, result.stderr
    assert tokens_stats(str(tmp_path / "out"))["documents"] == 10


# ---------------------------------------------------------------------------------------------- bad input


def write_docs(path: Path, lines: list[bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def test_missing_text_field_names_file_and_line(tmp_path):
    docs = write_docs(tmp_path / "docs" / "a.jsonl", [b'{"id": "1", "text": "fine"}', b'{"id": "2", "body": "no text"}'])
    with pytest.raises(InputError) as error:
        tokens(["--documents", str(docs), *GPT_NEO, "--destination", str(tmp_path / "out")])
    assert f"{docs}:2" in str(error.value) and "text" in str(error.value)


def test_invalid_utf8_names_file_and_line(tmp_path):
    docs = write_docs(tmp_path / "docs" / "a.jsonl", [b'{"id": "1", "text": "fine"}', b'{"id": "2", "text": "caf\xe9"}'])
    with pytest.raises(InputError) as error:
        tokens(["--documents", str(docs), *GPT_NEO, "--destination", str(tmp_path / "out")])
    assert f"{docs}:2" in str(error.value) and "UTF-8" in str(error.value)
    assert not list((tmp_path / "out").glob("part-*")), "a failed group leaves no outputs"


def test_tokenizer_file_missing_or_hub_name(tmp_path, conformance):
    os.chdir(conformance)
    base = ["--documents", PROVIDED, "--tokenizer.eos_token_id", "0", "--destination", str(tmp_path / "out")]
    with pytest.raises(ConfigError, match="tokenizer file not found"):
        tokens([*base, "--tokenizer.name_or_path", str(tmp_path / "nope.json")])
    with pytest.raises(ConfigError, match="does not download") as error:
        tokens([*base, "--tokenizer.name_or_path", "allenai/gpt-neox-olmo-dolma-v1_5"])
    assert "tokenizer.json" in error.value.hint
    with pytest.raises(ConfigError, match="neither"):
        tokens(["--documents", PROVIDED, "--tokenizer.name_or_path", str(TOKENIZERS / "llama-test-tokenizer.json"), "--destination", str(tmp_path / "x")])
    for beside in ([], ["--tokenizer.eos_token_id", "0"], ["--tokenizer.name_or_path", str(TOKENIZERS / "llama-test-tokenizer.json")]):
        with pytest.raises(ConfigError, match="`tokenizer_name_or_path` is deprecated"):  # never ignored silently
            tokens(["--documents", PROVIDED, "--tokenizer_name_or_path", "x.json", *beside, "--destination", str(tmp_path / "y")])


def test_vocabulary_too_large_for_uint16(tmp_path):
    """70,000 ids need uint32: the default dtype is refused with a hint, --dtype uint32 writes 4-byte tokens."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    vocab = {f"w{i}": i for i in range(70_000)}
    vocab["[UNK]"] = 70_000
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    tokenizer.save(str(tmp_path / "big.json"))
    docs = write_docs(tmp_path / "docs" / "a.jsonl", [b'{"id": "1", "text": "w1 w69999 w5"}'])
    args = ["--documents", str(docs), "--tokenizer.name_or_path", str(tmp_path / "big.json"), "--tokenizer.eos_token_id", "70000"]
    with pytest.raises(ConfigError, match="uint32") as error:
        tokens([*args, "--destination", str(tmp_path / "out")])
    assert error.value.path == "dtype"
    tokens([*args, "--dtype", "uint32", "--destination", str(tmp_path / "out")])
    assert os.path.getsize(tmp_path / "out" / "part-0-00000.npy") == 4 * 4
    assert np.fromfile(tmp_path / "out" / "part-0-00000.npy", dtype="<u4").tolist() == [1, 69999, 5, 70000]


def test_destination_not_empty_is_refused_unless_overwrite_or_resume(conformance, tmp_path):
    os.chdir(conformance)
    args = ["--documents", PROVIDED, *GPT_NEO, "--destination", str(tmp_path / "out")]
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "part-0-00000.npy").write_bytes(b"stale")
    (tmp_path / "out" / "part-7-00000.npy").write_bytes(b"stale")
    with pytest.raises(ConfigError, match="not empty"):
        tokens(args)
    with pytest.raises(ConfigError, match="different options") as error:  # part-7: not a file this run writes
        tokens([*args, "--resume"])
    assert "part-7-00000.npy" in error.value.message
    tokens([*args, "--overwrite"])
    assert sorted(p.name for p in (tmp_path / "out").glob("part-*")) == ["part-0-00000.csv.gz", "part-0-00000.npy"]
    assert tokens_stats(str(tmp_path / "out"))["documents"] == 10
    with pytest.raises(ConfigError, match="not empty"):
        tokens(args)
    assert tokens([*args, "--resume"]).counters == {"units_skipped": 1}  # everything done: nothing to redo
    with pytest.raises(ConfigError, match="different options"):  # the ledger's records were made with seed 3920
        tokens([*args, "--resume", "--seed", "5"])


def test_resume_redoes_only_unfinished_groups(mixed_corpus, tmp_path):
    """A run that died in group 1 (a temp file left, a part committed, no ledger record) is finished by --resume."""
    args = ["--documents", str(mixed_corpus / "documents" / "*.jsonl.gz"), *GPT_NEO, "--files_per_process", "2"]
    tokens([*args, "--destination", str(tmp_path / "clean")])
    tokens([*args, "--destination", str(tmp_path / "killed")])
    killed = tmp_path / "killed"
    [record] = (killed / ".dolma-sql").glob("part-1-00000.npy.tokens.*.done")
    record.unlink()
    (killed / "part-1-00000.csv.gz").unlink()
    (killed / "part-1-00001.npy.1234-abcdef01.tmp").write_bytes(b"partial")
    group0 = (killed / "part-0-00000.npy").stat().st_mtime_ns
    tokens([*args, "--destination", str(killed), "--resume"])
    assert (killed / "part-0-00000.npy").stat().st_mtime_ns == group0, "finished groups are kept"
    assert sorted(p.name for p in killed.iterdir()) == sorted(p.name for p in (tmp_path / "clean").iterdir())
    for path in (tmp_path / "clean").glob("part-*"):
        assert (killed / path.name).read_bytes() == path.read_bytes()


def test_killed_run_resumes(mixed_corpus, tmp_path):
    """SIGKILL the CLI and its workers once a group is done; --resume finishes with output identical to an uninterrupted run."""
    args = ["tokens", "--documents", str(mixed_corpus / "documents" / "*.jsonl.gz"), *LLAMA, "--files_per_process", "1", "--processes", "1"]
    killed = tmp_path / "killed"
    process = subprocess.Popen(
        cli_command([*args, "--destination", str(killed)]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # so the kill takes the worker processes too, as a crash would
    )
    deadline = time.time() + 120
    while not list((killed / ".dolma-sql").glob("*.done")) and time.time() < deadline and process.poll() is None:
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done_at_kill = len(list((killed / ".dolma-sql").glob("*.done")))
    assert 1 <= done_at_kill < 5, "the run must be interrupted part-way"
    result = run_cli([*args, "--destination", str(killed)], tmp_path)
    assert result.returncode == 1 and "--resume" in result.stderr
    result = run_cli([*args, "--destination", str(killed), "--resume"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"{done_at_kill} of 5 groups were already done" in result.stderr
    result = run_cli([*args, "--destination", str(tmp_path / "clean")], tmp_path)
    assert result.returncode == 0, result.stderr
    clean = sorted(p.name for p in (tmp_path / "clean").glob("part-*"))
    assert clean == sorted(p.name for p in killed.glob("part-*"))
    for name in clean:
        assert (killed / name).read_bytes() == (tmp_path / "clean" / name).read_bytes()


def test_errors_are_user_errors_in_workers(mixed_corpus, tmp_path):
    """A bad file in one of two parallel groups fails the run with its file:line; the good group is kept."""
    docs = tmp_path / "docs"
    write_docs(docs / "a.jsonl", [b'{"id": "1", "text": "fine"}'])
    write_docs(docs / "b.jsonl", [b'{"id": "1", "text": "fine"}', b"not json"])
    with pytest.raises(DolmaSqlError) as error:
        tokens(["--documents", str(docs / "*.jsonl"), *GPT_NEO, "--processes", "2", "--destination", str(tmp_path / "out")])
    assert f"{docs / 'b.jsonl'}:2" in str(error.value)


def test_refresh_and_encode_special_tokens(mixed_corpus, tmp_path):
    """``tokenizer.refresh`` re-creates the tokenizer without changing tokens; ``encode_special_tokens`` splits literals."""
    from tokenizers import Tokenizer

    edge = str(mixed_corpus / "documents" / "edge.jsonl.gz")
    tokens(["--documents", edge, *GPT_NEO, "--destination", str(tmp_path / "plain")])
    tokens(["--documents", edge, *GPT_NEO, "--tokenizer.refresh", "2", "--destination", str(tmp_path / "refresh")])
    assert documents_by_location(tmp_path / "refresh") == documents_by_location(tmp_path / "plain")
    tokens(["--documents", edge, *GPT_NEO, "--tokenizer.encode_special_tokens", "--destination", str(tmp_path / "split")])
    split = {d.id: d.tokens.tolist() for d in iter_documents(str(tmp_path / "split"))}
    reference = Tokenizer.from_file(str(TOKENIZERS / "gpt-neo-test-tokenizer.json"))
    reference.encode_special_tokens = True
    text = next(doc["text"] for doc in EDGE_DOCS if doc["id"] == "special")
    assert split["special"] == reference.encode(text.strip(), add_special_tokens=False).ids + [50279]
    assert 50279 not in split["special"][:-1]
    plain = {d.id: d.tokens.tolist() for d in iter_documents(str(tmp_path / "plain"))}
    assert 50279 in plain["special"][:-1]  # by default the literal <|endoftext|> is the special token


def test_nested_text_field(tmp_path):
    """``fields.text_field_name`` may be a dotted path into the document, as in dolma."""
    docs = write_docs(tmp_path / "docs" / "a.jsonl", [json.dumps({"id": "n1", "body": {"content": " Nested text. "}}).encode()])
    tokens(["--documents", str(docs), *LLAMA, "--fields.text_field_name", "body.content", "--destination", str(tmp_path / "out")])
    [document] = list(iter_documents(str(tmp_path / "out")))
    assert document.id == "n1"
    assert document.tokens.tolist() == expected_tokens(" Nested text. ", TOKENIZERS / "llama-test-tokenizer.json", 1, 2)
