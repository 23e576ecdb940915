"""Tokenizing a corpus into dolma/OLMo training memmaps, and reading them back.

The output is dolma's: ``part-<group>-<NNNNN>.npy`` raw token memmaps (no numpy header, little
endian ``dtype``) beside ``part-<group>-<NNNNN>.csv.gz`` with one ``start,end,id,src,loc`` row per
document (token offsets, end exclusive; source path; 1-based line). Each document is
``[bos]? + tokenizer(text.strip()) + [eos]?`` as dolma builds it.

How it runs: input files are shuffled with ``seed`` and grouped as dolma groups them (one output
group per writer). A group reads ``ring_size`` files at a time, document batches at a time
(Arrow columns from :func:`dolma_sql.formats.documents.iter_document_batches`), and tokenizes each batch with the
Rust tokenizer's multi-threaded ``encode_batch``; token ids live in flat numpy arrays from then
on. Documents are taken from the ring round-robin (or sampled by file size), ``batch_size`` at a
time, shuffled with a generator seeded by ``(seed, group)`` and packed into memmaps of fewer
than ``max_size`` tokens. The same seed therefore gives byte-identical output (dolma's order
changes from run to run). Memory is bounded by the ring's current batches plus one shuffle batch.

Unlike dolma, a document of ``max_size`` tokens or more gets a memmap of its own (dolma loops
forever creating empty files); a group without tokens writes no files (dolma leaves a
``max_size`` memmap of zeros). Outputs are written to ``*.tmp`` and renamed; a group is marked
done in ``<destination>/.dolma-sql/`` only when all its files are in place, so a killed run
resumes by redoing only unfinished groups.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import random
import re
import shutil
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from math import ceil, log10

import msgspec
import numpy as np

from dolma_sql.config import WorkDirConfig
from dolma_sql.errors import ConfigError, InputError
from dolma_sql.storage import OutputFile, output
from dolma_sql.formats.documents import iter_document_batches
from dolma_sql.storage import expand_globs

# ---------------------------------------------------------------------------------------------- options


class TokenizerOptions(msgspec.Struct, forbid_unknown_fields=True):
    name_or_path: str | None = None
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    segment_before_tokenization: bool = False
    refresh: int = 0
    fast: bool = True
    encode_special_tokens: bool = False


class FieldsOptions(msgspec.Struct, forbid_unknown_fields=True):
    text_field_name: str = "text"
    text_field_type: str = "str"
    id_field_name: str | None = "id"
    id_field_type: str = "str"


class TokensConfig(msgspec.Struct, forbid_unknown_fields=True):
    """dolma 1.2.1's ``TokenizationConfig``, plus ``overwrite`` and ``resume`` for a non-empty destination."""

    documents: list[str] = []
    destination: str | None = None
    tokenizer_name_or_path: str | None = None
    tokenizer: TokenizerOptions | None = None
    processes: int = 1
    files_per_process: int | None = None
    batch_size: int = 10_000
    ring_size: int = 8
    fields: FieldsOptions = msgspec.field(default_factory=FieldsOptions)
    sample_ring_prop: bool = False
    max_size: int = 1024 * 1024 * 1024
    dtype: str = "uint16"
    debug: bool = False
    seed: int = 3920
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    dryrun: bool = False
    overwrite: bool = False
    resume: bool = False


STRING_TYPES = ("str", "string")
"""``fields.*_type`` values dolma-sql reads: documents' ids and texts are JSON strings."""


def check_config(config: TokensConfig) -> None:
    """Validate what msgspec cannot: rules across fields, and dolma's options dolma-sql refuses."""
    options = config.tokenizer
    if options is None and config.tokenizer_name_or_path is not None:
        raise ConfigError(
            "`tokenizer_name_or_path` is deprecated and needs the Hub to find the end-of-sequence id",
            path="tokenizer_name_or_path",
            hint="pass --tokenizer.name_or_path FILE --tokenizer.eos_token_id ID instead",
        )
    if options is None or options.name_or_path is None:
        raise ConfigError("no tokenizer given", path="tokenizer.name_or_path", hint="pass --tokenizer.name_or_path path/to/tokenizer.json")
    if options.bos_token_id is None and options.eos_token_id is None:
        raise ConfigError(
            "neither tokenizer.eos_token_id nor tokenizer.bos_token_id is set, so documents would not be separated",
            path="tokenizer.eos_token_id",
            hint="pass --tokenizer.eos_token_id ID (and/or --tokenizer.bos_token_id ID)",
        )
    if not options.fast:
        raise ConfigError("slow (transformers) tokenizers are not supported", path="tokenizer.fast", hint="drop --no-tokenizer.fast")
    if config.destination is None and not config.dryrun:
        raise ConfigError("no destination given", path="destination", hint="pass --destination DIR")
    for name in ("text_field_type", "id_field_type"):
        if getattr(config.fields, name) not in STRING_TYPES:
            raise ConfigError(f"only string fields are supported, got {getattr(config.fields, name)!r}", path=f"fields.{name}")
    for name in ("processes", "batch_size", "ring_size", "max_size"):
        if getattr(config, name) < 1:
            raise ConfigError(f"must be at least 1, got {getattr(config, name)}", path=name)
    if config.files_per_process is not None and config.files_per_process < 1:
        raise ConfigError(f"must be at least 1, got {config.files_per_process}", path="files_per_process")
    if options.refresh < 0:
        raise ConfigError(f"must be 0 (never) or a number of documents, got {options.refresh}", path="tokenizer.refresh")
    if config.overwrite and config.resume:
        raise ConfigError("overwrite and resume exclude each other", path="overwrite")


# ---------------------------------------------------------------------------------------------- tokenizer

UNICODE_FORMS = {"NFC", "NFD", "NFKC", "NFKD"}


class DocumentTokenizer:
    """dolma's document encoding over the HF ``tokenizers`` Rust library, batch by batch.

    A document becomes ``[bos]? + ids + [eos]?`` where bos (eos) is added unless ``ids`` already
    starts (ends) with it, and nothing is added to a document without tokens, as dolma does.
    When the tokenizer's normalizer is one Unicode normal form, texts already in that form skip
    it (the result is the same, and normalizing is a third of the work).
    """

    def __init__(self, options: TokenizerOptions, dtype: str | None = None) -> None:
        from tokenizers import Tokenizer

        path = options.name_or_path
        if path is None or not os.path.isfile(path):
            raise _missing_tokenizer(path)
        try:
            self.tokenizer = Tokenizer.from_file(path)
        except Exception as error:  # tokenizers raises plain Exceptions for malformed files
            raise ConfigError(f"cannot load tokenizer: {error}", path=path, hint="pass a Hugging Face tokenizer.json file") from None
        with open(path, "rb") as handle:
            content = handle.read()
        self.sha256 = hashlib.sha256(content).hexdigest()
        spec = json.loads(content)
        self.options = options
        self.vocab_size = self.tokenizer.get_vocab_size()
        self.dtype = np.dtype(np.min_scalar_type(self.vocab_size - 1)).newbyteorder("<")
        try:
            wanted = None if dtype is None else np.dtype(dtype)
        except TypeError:
            raise ConfigError(f"{dtype!r} is not a numpy dtype", path="dtype", hint=f"pass --dtype {self.dtype.name}") from None
        if wanted is not None and wanted != self.dtype:
            raise ConfigError(
                f"dtype {dtype!r} does not match the tokenizer: its vocabulary of {self.vocab_size:,} ids needs {self.dtype.name}",
                path="dtype",
                hint=f"pass --dtype {self.dtype.name}",
            )
        for name in ("bos_token_id", "eos_token_id"):
            value = getattr(options, name)
            if value is not None and not 0 <= value <= np.iinfo(self.dtype).max:
                raise ConfigError(f"{value} does not fit in {self.dtype.name}", path=f"tokenizer.{name}", hint="check the id against the tokenizer's vocabulary")
        self.has_prefix = _adds_prefix(spec)
        normalizer = spec.get("normalizer") or {}
        self.normal_form = normalizer.get("type") if normalizer.get("type") in UNICODE_FORMS else None
        self._spec = self.tokenizer.to_str()
        self.tokenizer.encode_special_tokens = options.encode_special_tokens
        self.plain = None
        self._since_refresh = 0

    def _load(self, *, fresh: bool) -> None:
        """Build the normalizer-free twin, and with ``fresh`` re-create the main tokenizer too
        (``refresh`` every N documents: dolma's workaround for the tokenizers' memory growth)."""
        from tokenizers import Tokenizer

        if fresh:
            self.tokenizer = Tokenizer.from_str(self._spec)
            self.tokenizer.encode_special_tokens = self.options.encode_special_tokens
        if self.normal_form:
            self.plain = Tokenizer.from_str(self._spec)
            self.plain.normalizer = None
            self.plain.encode_special_tokens = self.options.encode_special_tokens
        self._since_refresh = 0

    def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids of ``texts`` (stripped, non-empty) with bos/eos: ``(flat ids, per-document lengths)``."""
        if self.options.refresh and self._since_refresh >= self.options.refresh:
            self._load(fresh=True)
        elif self.normal_form and self.plain is None:
            self._load(fresh=False)
        self._since_refresh += len(texts)
        if self.options.segment_before_tokenization:
            ids = self._encode_paragraphs(texts)
        else:
            ids = self._encode_all(texts)
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(lengths.sum()))
        return self._add_special_tokens(flat, lengths)

    def _encode_all(self, texts: list[str]) -> list[list[int]]:
        if not self.normal_form:
            return _ids(self.tokenizer, texts)
        normal = [unicodedata.is_normalized(self.normal_form, text) for text in texts]
        if all(normal):
            return _ids(self.plain, texts)
        ids: list = [None] * len(texts)
        for tokenizer, wanted in ((self.plain, True), (self.tokenizer, False)):
            rows = [row for row, flag in enumerate(normal) if flag is wanted]
            for row, row_ids in zip(rows, _ids(tokenizer, [texts[row] for row in rows])):
                ids[row] = row_ids
        return ids

    def _encode_paragraphs(self, texts: list[str]) -> list[list[int]]:
        """dolma's experimental ``segment_before_tokenization``: encode paragraphs, then join their ids.

        Paragraphs keep their leading newlines; with a prefix-adding tokenizer every paragraph but
        the first gets a space that is dropped again as its first token.
        """
        pieces: list[str] = []
        bounds: list[int] = [0]
        for text in texts:
            for index, match in enumerate(PARAGRAPH.finditer(text)):
                pieces.append((" " if self.has_prefix and index else "") + match.group())
            bounds.append(len(pieces))
        encoded = self._encode_all(pieces)
        trim = 1 if self.has_prefix else 0
        return [
            list(chain.from_iterable(encoded[k][trim if k > start else 0 :] for k in range(start, end)))
            for start, end in zip(bounds, bounds[1:])
        ]

    def _add_special_tokens(self, flat: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        nonempty = lengths > 0
        bos, eos = self.options.bos_token_id, self.options.eos_token_id
        no = np.zeros(len(lengths), dtype=bool)
        add_bos = nonempty & (flat[np.where(nonempty, starts, 0)] != bos) if bos is not None and len(flat) else no
        add_eos = nonempty & (flat[np.where(nonempty, starts + lengths - 1, 0)] != eos) if eos is not None and len(flat) else no
        new_lengths = lengths + add_bos + add_eos
        new_starts = np.concatenate([[0], np.cumsum(new_lengths)]).astype(np.int64)
        out = np.empty(int(new_starts[-1]), dtype=self.dtype)
        shift = np.repeat(new_starts[:-1] + add_bos - starts, lengths)
        out[np.arange(len(flat)) + shift] = flat
        if add_bos.any():
            out[new_starts[:-1][add_bos]] = bos
        if add_eos.any():
            out[new_starts[1:][add_eos] - 1] = eos
        return out, new_lengths


PARAGRAPH = re.compile(r"(^\n*|\n+)[^\n]*")


ENCODE_CHARS = 1 << 19
"""Characters per ``encode_batch`` call: the Rust encodings cost ~100 bytes per token until converted to ids."""


def _ids(tokenizer, texts: list[str]) -> list[list[int]]:
    """Token ids of each text, encoded in slices of about ``ENCODE_CHARS`` characters (multi-threaded within a slice)."""
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    ids: list[list[int]] = []
    first = chars = 0
    for index, text in enumerate(texts):
        chars += len(text)
        if chars >= ENCODE_CHARS or index == len(texts) - 1:
            ids.extend(encoding.ids for encoding in encode(texts[first : index + 1], add_special_tokens=False))
            first, chars = index + 1, 0
    return ids


def _adds_prefix(spec: dict) -> bool:
    """Whether the tokenizer puts a prefix before a text (a pre-tokenizer's ``add_prefix_space`` or a ``Prepend`` normalizer)."""
    pre = spec.get("pre_tokenizer") or {}
    pres = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    norm = spec.get("normalizer") or {}
    norms = norm.get("normalizers", []) if norm.get("type") == "Sequence" else [norm]
    return any(p.get("add_prefix_space", False) for p in pres) or any(n.get("type") == "Prepend" for n in norms)


def _missing_tokenizer(name: str | None) -> ConfigError:
    looks_like_hub_name = name is not None and not name.endswith(".json") and name.count("/") <= 1 and not name.startswith((".", "/", "~"))
    if looks_like_hub_name:
        return ConfigError(
            f"{name!r} is not a local file; dolma-sql does not download tokenizers from the Hugging Face Hub",
            path="tokenizer.name_or_path",
            hint=f"download it first (e.g. `huggingface-cli download {name} tokenizer.json --local-dir tok`) and pass the tokenizer.json path",
        )
    return ConfigError(f"tokenizer file not found: {name}", path="tokenizer.name_or_path", hint="pass the path of an existing tokenizer.json")


FAST_ALLOCATORS = ("mimalloc", "jemalloc")
"""Preloaded into the workers when installed (``apt install libmimalloc2.0``): the Rust tokenizer allocates
a string per token, and glibc's malloc/free is about half of its time; mimalloc cuts that by ~35%.
``DOLMA_SQL_ALLOCATOR=system`` keeps glibc's."""


def worker_env() -> dict[str, str]:
    """``LD_PRELOAD`` of the first fast allocator found, for the tokenizing worker processes (or nothing)."""
    import ctypes.util

    choice = os.environ.get("DOLMA_SQL_ALLOCATOR", "")
    if choice == "system":
        return {}
    for name in (choice,) if choice else FAST_ALLOCATORS:
        library = ctypes.util.find_library(name)
        if library:
            preload = os.environ.get("LD_PRELOAD", "")
            return {"LD_PRELOAD": f"{preload} {library}".strip()}
    return {}


# ---------------------------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class GroupUnit:
    """One writer's work: its input files (consumed from the end, as dolma pops them) and output prefix."""

    group: int
    files: tuple[str, ...]
    prefix: str
    config: TokensConfig
    state_dir: str


def plan_groups(files: list[str], *, processes: int, files_per_process: int | None, seed: int) -> list[list[str]]:
    """Shuffle files with ``seed`` and cut them into groups as dolma does.

    A group holds ``min(files_per_process, len(files) / processes)`` files (rounded at each cut),
    so there are ``processes`` groups unless ``files_per_process`` asks for smaller ones.
    """
    files = list(files)
    random.Random(seed).shuffle(files)
    step = min(files_per_process or float("inf"), len(files) / processes)
    groups = []
    position = 0.0
    while position < len(files):
        group = files[int(round(position)) : int(round(position + step))]
        if group:
            groups.append(group)
        position += step
    return groups


def part_prefix(destination: str, group: int, groups: int) -> str:
    digits = int(ceil(log10(groups + 1)))
    return os.path.join(destination, f"part-{group:0{digits}d}")


STATE_DIR = ".dolma-sql"


def _manifest(config: TokensConfig, groups: list[list[str]], tokenizer: DocumentTokenizer) -> dict:
    """What determines the output: a resumed run must have the same, or its outputs would mix two runs."""
    options = msgspec.to_builtins(config)
    for name in ("processes", "dryrun", "overwrite", "resume", "debug", "work_dir", "documents", "destination"):
        options.pop(name, None)
    return {"groups": groups, "tokenizer_sha256": tokenizer.sha256, "dtype": tokenizer.dtype.name, "options": options}


def _prepare_destination(config: TokensConfig, manifest: dict) -> str:
    """Check the destination is empty (or resumable, or may be overwritten); returns the state dir."""
    destination = config.destination
    state_dir = os.path.join(destination, STATE_DIR)
    manifest_path = os.path.join(state_dir, "tokens.json")
    if os.path.isfile(destination):
        raise ConfigError("destination is a file", path=destination, hint="pass a directory")
    entries = os.listdir(destination) if os.path.isdir(destination) else []
    if entries and config.overwrite:
        for name in entries:
            if name.startswith("part-") or name == STATE_DIR:
                target = os.path.join(destination, name)
                shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
    elif entries and config.resume:
        if not os.path.isfile(manifest_path):
            raise ConfigError(
                "cannot resume: the destination holds no dolma-sql tokens run",
                path=destination,
                hint="pass --overwrite to replace its part-* files, or choose an empty destination",
            )
        with open(manifest_path) as handle:
            previous = json.load(handle)
        if previous != manifest:
            changed = sorted(key for key in set(previous) | set(manifest) if previous.get(key) != manifest.get(key))
            raise ConfigError(
                f"cannot resume: the run in this destination used different {', '.join(changed)}",
                path=destination,
                hint="rerun with the original options, or pass --overwrite",
            )
        return state_dir
    elif entries:
        raise ConfigError(
            "destination is not empty",
            path=destination,
            hint="pass --resume to finish an interrupted run, --overwrite to replace its part-* files, or choose another directory",
        )
    os.makedirs(state_dir, exist_ok=True)
    with output(manifest_path) as handle:
        handle.write(json.dumps(manifest, indent=1).encode())
    return state_dir


def _done_marker(state_dir: str, prefix: str) -> str:
    return os.path.join(state_dir, os.path.basename(prefix) + ".done")


def _clear_group(prefix: str) -> None:
    """Remove what an interrupted attempt at a group left (finished parts included: the group is redone whole)."""
    directory, stem = os.path.split(prefix)
    for name in os.listdir(directory):
        if name.startswith(stem + "-"):
            os.remove(os.path.join(directory, name))


# ---------------------------------------------------------------------------------------------- reading


@dataclass
class TokenizedBatch:
    """Tokenized documents of one input batch: document ``i`` is ``tokens[starts[i] : starts[i] + lengths[i]]``."""

    tokens: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    ids: list[str]
    locs: np.ndarray
    srcs: list[str]


READ_BYTES = 2 << 20
"""Decompressed bytes per input batch: keeps ``ring_size`` open files' batches small."""


def iter_tokenized(path: str, tokenizer: DocumentTokenizer, fields: FieldsOptions) -> Iterator[TokenizedBatch]:
    """Documents of ``path``, tokenized one Arrow batch at a time; empty (whitespace-only) texts are skipped."""
    text_field, id_field = fields.text_field_name, fields.id_field_name
    names = (id_field, text_field) if id_field else (text_field,)
    path_hash = hashlib.sha256(path.encode()).hexdigest()
    for batch in iter_document_batches(path, fields=names, required=names, batch_bytes=READ_BYTES):
        texts = [text.strip() for text in batch.table.column(text_field).to_pylist()]
        keep = [row for row, text in enumerate(texts) if text]
        if not keep:
            continue
        if len(keep) < len(texts):
            texts = [texts[row] for row in keep]
        rows = np.asarray(keep, dtype=np.int64)
        if id_field:
            ids = batch.table.column(id_field).take(rows).to_pylist()
        else:
            ids = [f"{path_hash}-{batch.first_line + row}" for row in keep]
        tokens, lengths = tokenizer.encode(texts)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        yield TokenizedBatch(tokens, starts, lengths, ids, rows + batch.first_line, [path] * len(keep))


class _Source:
    """One file in the ring: hands out its tokenized documents one at a time, loading batches lazily."""

    def __init__(self, path: str, make_batches) -> None:
        self.path = path
        self.size = os.path.getsize(path)
        self._batches = make_batches(path)
        self.batch: TokenizedBatch | None = None
        self.next_row = 0

    def take(self) -> tuple[TokenizedBatch, int] | None:
        while self.batch is None or self.next_row >= len(self.batch.lengths):
            self.batch = next(self._batches, None)
            self.next_row = 0
            if self.batch is None:
                return None
        self.next_row += 1
        return self.batch, self.next_row - 1


def iter_shuffled_batches(unit: GroupUnit, tokenizer: DocumentTokenizer, rng: np.random.Generator) -> Iterator[TokenizedBatch]:
    """The group's documents, interleaved through the ring and shuffled ``batch_size`` at a time."""
    config = unit.config
    pending = list(unit.files)

    def make_batches(path: str) -> Iterator[TokenizedBatch]:
        return iter_tokenized(path, tokenizer, config.fields)

    ring = [_Source(pending.pop(), make_batches) for _ in range(min(config.ring_size, len(pending)))]
    while ring:
        picks: list[tuple[TokenizedBatch, int]] = []
        turn = 0
        while ring and len(picks) < config.batch_size:
            if config.sample_ring_prop:
                sizes = np.array([source.size for source in ring], dtype=np.float64)
                slot = int(rng.choice(len(ring), p=sizes / sizes.sum())) if sizes.sum() else turn % len(ring)
            else:
                slot = turn % len(ring)
            turn += 1
            pick = ring[slot].take()
            if pick is None:
                ring.pop(slot)
                if pending:
                    ring.append(_Source(pending.pop(), make_batches))
                continue
            picks.append(pick)
        if picks:
            yield _gather(picks, rng.permutation(len(picks)))


def _gather(picks: list[tuple[TokenizedBatch, int]], order: np.ndarray) -> TokenizedBatch:
    """One batch holding ``picks`` in ``order``, their tokens copied into one array (no per-token index arrays)."""
    chosen = [picks[index] for index in order.tolist()]
    lengths = np.fromiter((batch.lengths[row] for batch, row in chosen), dtype=np.int64, count=len(chosen))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    tokens = np.empty(int(lengths.sum()), dtype=chosen[0][0].tokens.dtype)
    for (batch, row), start, length in zip(chosen, starts.tolist(), lengths.tolist()):
        source = int(batch.starts[row])
        tokens[start : start + length] = batch.tokens[source : source + length]
    locs = np.fromiter((batch.locs[row] for batch, row in chosen), dtype=np.int64, count=len(chosen))
    return TokenizedBatch(tokens, starts, lengths, [b.ids[r] for b, r in chosen], locs, [b.srcs[r] for b, r in chosen])


# ---------------------------------------------------------------------------------------------- writing


class MemmapSeries:
    """Writes ``<prefix>-00000.npy`` / ``.csv.gz``, ``-00001`` … each holding fewer than ``max_size`` tokens.

    A document goes into the current memmap if it keeps it under ``max_size`` tokens, otherwise
    into a new one; a document of ``max_size`` tokens or more gets a memmap of its own. Files are
    written under ``.tmp`` names and renamed when complete.
    """

    def __init__(self, prefix: str, max_size: int) -> None:
        self.prefix = prefix
        self.max_size = max_size
        self.count = 0
        self.written = 0
        self._memmap = None
        self._csv: OutputFile | None = None
        self._npy_path = ""

    def write(self, batch: TokenizedBatch) -> None:
        ends = np.cumsum(batch.lengths)
        first = 0
        while first < len(batch.lengths):
            if self._memmap is None:
                self._open()
            base = ends[first - 1] if first else 0
            fits = int(np.searchsorted(ends[first:] - base, self.max_size - self.written, side="left"))
            if fits == 0 and self.written:
                self._close()
                continue
            last = first + max(fits, 1)
            self._append(batch, first, last, base)
            first = last

    def _append(self, batch: TokenizedBatch, first: int, last: int, base: int) -> None:
        lo, hi = int(batch.starts[first]), int(batch.starts[last - 1] + batch.lengths[last - 1])
        self._memmap.write(batch.tokens[lo:hi].data)
        starts = batch.starts[first:last] - lo + self.written
        ends = starts + batch.lengths[first:last]
        text = io.StringIO()
        csv.writer(text).writerows(zip(starts.tolist(), ends.tolist(), batch.ids[first:last], batch.srcs[first:last], batch.locs[first:last].tolist()))
        self._csv.write(text.getvalue().encode("utf-8"))
        self.written += hi - lo

    def _open(self) -> None:
        path = f"{self.prefix}-{self.count:05d}"
        self._npy_path = path + ".npy"
        self._memmap = open(self._npy_path + ".tmp", "wb")
        self._csv = output(path + ".csv.gz")
        self.written = 0

    def _close(self) -> None:
        self._memmap.close()
        os.replace(self._npy_path + ".tmp", self._npy_path)
        self._csv.commit()
        self._memmap = self._csv = None
        self.count += 1

    def close(self) -> None:
        if self._memmap is not None:
            self._close()

    def abort(self) -> None:
        if self._memmap is not None:
            self._memmap.close()
            os.remove(self._npy_path + ".tmp")
            self._csv.abort()
            self._memmap = self._csv = None


def tokenize_group(unit: GroupUnit) -> dict[str, float]:
    """Tokenize one group's files into its memmaps; returns counters (documents, tokens, memmaps)."""
    config = unit.config
    _clear_group(unit.prefix)
    tokenizer = DocumentTokenizer(config.tokenizer, config.dtype)
    rng = np.random.default_rng([config.seed, unit.group])
    series = MemmapSeries(unit.prefix, config.max_size)
    documents = tokens = 0
    try:
        for batch in iter_shuffled_batches(unit, tokenizer, rng):
            series.write(batch)
            documents += len(batch.lengths)
            tokens += int(batch.lengths.sum())
        series.close()
    except BaseException:
        series.abort()
        raise
    counters = {"documents": documents, "tokens": tokens, "memmaps": series.count, "files": len(unit.files)}
    with output(_done_marker(unit.state_dir, unit.prefix)) as handle:
        handle.write(json.dumps(counters).encode())
    return counters


@dataclass(frozen=True)
class TokensPlan:
    units: list[GroupUnit]
    skipped: list[GroupUnit]
    files: int


def plan_tokens(config: TokensConfig, *, warn=None) -> TokensPlan:
    """Validate the config and the tokenizer, prepare the destination, and list the groups still to do."""
    check_config(config)
    tokenizer = DocumentTokenizer(config.tokenizer, config.dtype)
    files = expand_globs(config.documents, config_path="documents", warn=warn)
    groups = plan_groups(files, processes=config.processes, files_per_process=config.files_per_process, seed=config.seed)
    if config.dryrun:
        return TokensPlan([], [], len(files))
    state_dir = _prepare_destination(config, _manifest(config, groups, tokenizer))
    units = [
        GroupUnit(group, tuple(paths), part_prefix(config.destination, group, len(groups)), config, state_dir)
        for group, paths in enumerate(groups)
    ]
    todo = [unit for unit in units if not os.path.isfile(_done_marker(state_dir, unit.prefix))]
    return TokensPlan(todo, [unit for unit in units if unit not in todo], len(files))


# ---------------------------------------------------------------------------------------------- reading back


@dataclass(frozen=True)
class TokenizedDocument:
    id: str
    src: str
    loc: int
    tokens: np.ndarray
    memmap: str
    start: int
    end: int


def memmap_files(destination: str) -> list[str]:
    """The ``.npy`` memmaps of a destination, in name order; each has its ``.csv.gz`` beside it."""
    if not os.path.isdir(destination):
        raise InputError("not a directory", path=destination, hint="pass the destination of a tokens run")
    names = sorted(name for name in os.listdir(destination) if name.startswith("part-") and name.endswith(".npy"))
    return [os.path.join(destination, name) for name in names]


def iter_metadata(npy_path: str) -> Iterator[tuple[int, int, str, str, int]]:
    """Rows ``(start, end, id, src, loc)`` of a memmap's ``.csv.gz``."""
    csv_path = npy_path[: -len(".npy")] + ".csv.gz"
    with gzip.open(csv_path, "rt", encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle), start=1):
            if len(row) != 5:
                raise InputError(f"expected 5 columns start,end,id,src,loc, got {len(row)}", path=csv_path, line=number)
            yield int(row[0]), int(row[1]), row[2], row[3], int(row[4])


def memmap_dtype(npy_path: str, tokens: int) -> np.dtype:
    """The token dtype of a raw memmap (which has no header): its size over the tokens its csv indexes."""
    size = os.path.getsize(npy_path)
    if tokens == 0 or size % tokens or size // tokens not in (1, 2, 4, 8):
        raise InputError(f"{size} bytes do not hold {tokens} tokens of 1, 2, 4 or 8 bytes", path=npy_path, hint="pass dtype explicitly")
    return np.dtype(f"<u{size // tokens}")


def iter_documents(destination: str, dtype: str | None = None) -> Iterator[TokenizedDocument]:
    """Every document of a tokens destination (dolma's or dolma-sql's), memmap by memmap, in file order."""
    for npy_path in memmap_files(destination):
        rows = list(iter_metadata(npy_path))
        total = max((end for _, end, *_ in rows), default=0)
        if total == 0:
            continue
        array = np.memmap(npy_path, dtype=np.dtype(dtype) if dtype else memmap_dtype(npy_path, total), mode="r")
        for start, end, doc_id, src, loc in rows:
            if end > len(array):
                raise InputError(f"row indexes tokens {start}:{end} past the memmap's {len(array)}", path=npy_path)
            yield TokenizedDocument(doc_id, src, loc, np.asarray(array[start:end]), npy_path, start, end)


def tokens_stats(destination: str) -> dict:
    """Documents and tokens in a destination, overall and per source file (from the csv indexes alone)."""
    per_source: dict[str, dict[str, int]] = {}
    documents = tokens = memmaps = 0
    for npy_path in memmap_files(destination):
        memmaps += 1
        for start, end, _id, src, _loc in iter_metadata(npy_path):
            entry = per_source.setdefault(src, {"documents": 0, "tokens": 0})
            entry["documents"] += 1
            entry["tokens"] += end - start
            documents += 1
            tokens += end - start
    return {"memmaps": memmaps, "documents": documents, "tokens": tokens, "sources": dict(sorted(per_source.items()))}
