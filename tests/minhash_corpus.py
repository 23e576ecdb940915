"""A documents corpus with planted near-duplicates at known Jaccard similarities, and its exact ground truth.

The MinHash quality test, the datatrove agreement test and ``bench/minhash.py`` all use this one
generator. Base documents are a few hundred words drawn Zipf-like from a vocabulary of pseudo-words,
in sentences and paragraphs with capitals and punctuation (so the normalisation has work to do).
Copies of a base are mutated by word edits, insertions, deletions and added boilerplate lines
until the exact Jaccard similarity of their word shingles to the base reaches a target drawn from
``similarities``. Punctuation only ever sits at a word's edges and the text is ASCII without
digits, so every normalisation that lower-cases, folds whitespace and drops punctuation (dolma-sql's,
datatrove's) yields the same words: the ground truth does not depend on those choices.

Everything is a function of the seed (numpy's PCG64), so a corpus is the same on every machine.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import re
import subprocess
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import regex

NGRAM_LENGTH = 5
"""Words per shingle: dolma-sql's and datatrove's default."""

_WORD = re.compile(r"[^\W_]+")  # a token's word, for edits that keep its punctuation
_PUNCTUATION = regex.compile(r"[\p{P}\p{S}]+")


def words_of(text: str) -> list[str]:
    """The words dolma-sql's default normalisation makes (docs/dedupe.md), written again from that
    description rather than imported: NFKC, lower-case, each run of punctuation and symbols a space,
    split on whitespace."""
    return _PUNCTUATION.sub(" ", unicodedata.normalize("NFKC", text).lower()).split()


def shingles(text: str, ngram_length: int = NGRAM_LENGTH) -> set[tuple[str, ...]]:
    """The set of ``ngram_length``-word shingles; a text shorter than that is one shingle of all its words."""
    words = words_of(text)
    if len(words) <= ngram_length:
        return {tuple(words)} if words else set()
    return {tuple(words[i:i + ngram_length]) for i in range(len(words) - ngram_length + 1)}


def jaccard(a: set, b: set) -> float:
    """Exact Jaccard similarity of two shingle sets (1.0 for two empty sets)."""
    if not a and not b:
        return 1.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


# ------------------------------------------------------------------------------ text model
_ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
           "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
_CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck"]
_BOILERPLATE_LINES = 40


def _vocabulary(rng: np.random.Generator, size: int) -> list[str]:
    """Distinct pseudo-words of one to four syllables, shorter ones first (they get the frequent ranks)."""
    seen: dict[str, None] = {}
    while len(seen) < size:
        syllables = int(rng.choice([1, 2, 2, 3, 3, 4]))
        parts = [_ONSETS[rng.integers(len(_ONSETS))] + _VOWELS[rng.integers(len(_VOWELS))] for _ in range(syllables)]
        seen.setdefault("".join(parts) + _CODAS[rng.integers(len(_CODAS))])
    return sorted(seen, key=len)


class _TextModel:
    """Zipf-distributed words assembled into punctuated sentences and paragraphs."""

    def __init__(self, rng: np.random.Generator, vocabulary_size: int = 30_000, zipf_exponent: float = 1.0,
                 zipf_offset: float = 2.7):
        self.rng = rng
        self.vocabulary = _vocabulary(rng, vocabulary_size)
        # Zipf-Mandelbrot, the usual fit of English word frequencies: the top word is about 5% of the words
        weights = 1.0 / (np.arange(1, vocabulary_size + 1) + zipf_offset) ** zipf_exponent
        self.cumulative = np.cumsum(weights / weights.sum())
        self.boilerplate = [self.tokens(int(rng.integers(8, 20)), paragraph_end=True) for _ in range(_BOILERPLATE_LINES)]

    def words(self, count: int) -> list[str]:
        ranks = np.minimum(np.searchsorted(self.cumulative, self.rng.random(count)), len(self.vocabulary) - 1)
        return [self.vocabulary[r] for r in ranks]

    def tokens(self, count: int, paragraph_end: bool = False) -> list[str]:
        """``count`` tokens, each one word with its punctuation and the whitespace after it."""
        rng, out = self.rng, []
        sentence_left = paragraph_left = 0
        for i, word in enumerate(self.words(count)):
            if sentence_left == 0:
                sentence_left = int(rng.integers(6, 24))
                word = word.capitalize()
                if rng.random() < 0.05:
                    word = '"' + word
            sentence_left -= 1
            if sentence_left == 0 or i == count - 1:
                word += [".", ".", ".", "?", "!"][rng.integers(5)]
                if paragraph_left == 0:
                    paragraph_left = int(rng.integers(2, 7))
                paragraph_left -= 1
                end = "\n\n" if paragraph_left == 0 or (i == count - 1 and paragraph_end) else " "
                sentence_left = 0
            else:
                punctuation = rng.random()
                word += "," if punctuation < 0.07 else ";" if punctuation < 0.08 else ":" if punctuation < 0.085 else ""
                end = " "
            out.append(word + end)
        if out and paragraph_end and not out[-1].endswith("\n"):
            out[-1] = out[-1].rstrip() + "\n"
        return out


# ------------------------------------------------------------------------------ mutations
_OPERATIONS = ("edit", "insert", "delete", "boilerplate")
_OPERATION_WEIGHTS = (0.4, 0.25, 0.25, 0.1)


def _mutations(model: _TextModel, count: int) -> list[tuple[str, float, object]]:
    """A random sequence of (operation, relative position, payload) that applies to any document length."""
    rng = model.rng
    operations = rng.choice(len(_OPERATIONS), size=count, p=_OPERATION_WEIGHTS)
    positions = rng.random(count)
    replacements = model.words(count)
    sequence = []
    for op, position, word in zip(operations, positions, replacements):
        name = _OPERATIONS[op]
        if name == "boilerplate":
            payload: object = (int(rng.integers(_BOILERPLATE_LINES)), bool(rng.random() < 0.5))
        else:
            payload = word
        sequence.append((name, float(position), payload))
    return sequence


def _apply(model: _TextModel, tokens: list[str], sequence: Sequence[tuple[str, float, object]]) -> list[str]:
    tokens = list(tokens)
    for name, position, payload in sequence:
        i = min(int(position * len(tokens)), len(tokens) - 1)
        if name == "edit":
            old = tokens[i]
            core = _WORD.search(old)
            tokens[i] = old[:core.start()] + (payload.capitalize() if core.group()[0].isupper() else payload) + old[core.end():]
        elif name == "insert":
            tokens.insert(i, f"{payload} ")
        elif name == "delete" and len(tokens) > NGRAM_LENGTH * 4:
            removed = tokens.pop(i)
            if removed.endswith("\n") and i > 0 and not tokens[i - 1].endswith("\n"):
                tokens[i - 1] = tokens[i - 1].rstrip() + "\n\n"
        elif name == "boilerplate":
            line, at_top = payload
            tokens = [*model.boilerplate[line], *tokens] if at_top else [*tokens[:-1], tokens[-1].rstrip() + "\n", *model.boilerplate[line]]
    return tokens


def _mutate_to(model: _TextModel, base: list[str], target: float, ngram_length: int) -> tuple[list[str], float]:
    """A copy of ``base`` mutated until its shingle Jaccard to ``base`` is as close to ``target`` as the steps allow."""
    base_shingles = shingles("".join(base), ngram_length)
    sequence = _mutations(model, 2 * len(base))
    cache: dict[int, tuple[list[str], float]] = {}

    def at(k: int) -> tuple[list[str], float]:
        if k not in cache:
            tokens = _apply(model, base, sequence[:k])
            cache[k] = tokens, jaccard(base_shingles, shingles("".join(tokens), ngram_length))
        return cache[k]

    low, high = 0, len(sequence)  # similarity falls (roughly monotonically) as mutations accumulate
    while high - low > 1:
        middle = (low + high) // 2
        if at(middle)[1] >= target:
            low = middle
        else:
            high = middle
    return min((at(low), at(high)), key=lambda result: abs(result[1] - target))


# ------------------------------------------------------------------------------ the corpus
@dataclass(frozen=True)
class Document:
    id: str
    text: str
    file: str
    line: int


@dataclass(frozen=True)
class PlantedPair:
    """A copy made from ``base`` at ``target`` similarity; ``similarity`` is its exact shingle Jaccard to the base."""

    copy: str
    base: str
    target: float
    similarity: float


@dataclass
class PlantedCorpus:
    root: Path
    documents: list[Document]
    planted: list[PlantedPair]
    ngram_length: int = NGRAM_LENGTH
    _shingles: dict[str, set] = field(default_factory=dict, repr=False)

    @property
    def documents_glob(self) -> str:
        return str(self.root / "documents" / "*.jsonl.gz")

    def by_id(self) -> dict[str, Document]:
        return {d.id: d for d in self.documents}

    def shingles_of(self, doc_id: str) -> set:
        if not self._shingles:
            self._shingles.update({d.id: shingles(d.text, self.ngram_length) for d in self.documents})
        return self._shingles[doc_id]

    def similarity(self, a: str, b: str) -> float:
        """Exact Jaccard similarity of two documents' shingles."""
        return jaccard(self.shingles_of(a), self.shingles_of(b))

    def near_pairs(self, floor: float) -> dict[tuple[str, str], float]:
        """Every pair of documents (ids sorted) with Jaccard >= ``floor``, found exhaustively."""
        return near_pairs({d.id: self.shingles_of(d.id) for d in self.documents}, floor)


DEFAULT_SIMILARITIES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)


def generate(root: Path | str, *, bases: int = 1500, copied_fraction: float = 0.3, max_copies: int = 3,
             similarities: Sequence[float] = DEFAULT_SIMILARITIES, files: int = 4, seed: int = 0,
             words: tuple[int, int] = (200, 700), ngram_length: int = NGRAM_LENGTH) -> PlantedCorpus:
    """Write ``root/documents/part-XXXX.jsonl.gz`` (documents shuffled over ``files``) and ``root/planted.json``.

    ``copied_fraction`` of the bases get 1..``max_copies`` copies, each at a target similarity drawn
    uniformly from ``similarities``. Reuses ``root`` when it already holds this exact corpus.
    """
    root = Path(root)
    parameters = {"bases": bases, "copied_fraction": copied_fraction, "max_copies": max_copies,
                  "similarities": list(similarities), "files": files, "seed": seed, "words": list(words),
                  "ngram_length": ngram_length}
    manifest = root / "planted.json"
    if manifest.exists():
        saved = json.loads(manifest.read_text())
        if saved["parameters"] == parameters:
            return load(root)
    rng = np.random.default_rng(seed)
    model = _TextModel(rng)
    texts: list[str] = []
    planted: list[tuple[int, int, float, float]] = []  # copy index, base index, target, similarity
    lengths = np.clip(rng.lognormal(np.log(350), 0.35, bases).astype(int), *words)
    for length in lengths:
        base_index = len(texts)
        base = model.tokens(int(length))
        texts.append("".join(base).strip())
        if rng.random() < copied_fraction:
            for _ in range(int(rng.integers(1, max_copies + 1))):
                target = float(similarities[rng.integers(len(similarities))])
                tokens, similarity = _mutate_to(model, base, target, ngram_length)
                planted.append((len(texts), base_index, target, similarity))
                texts.append("".join(tokens).strip())
    order = rng.permutation(len(texts))
    ids = [f"doc-{seed}-{i:07d}" for i in range(len(texts))]
    documents: list[Document] = []
    per_file = -(-len(texts) // files)
    for f in range(files):
        name = f"part-{f:04d}.jsonl.gz"
        chunk = order[f * per_file:(f + 1) * per_file]
        path = root / "documents" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as handle:
            for line, index in enumerate(chunk):
                handle.write(json.dumps({"id": ids[index], "text": texts[index], "source": "minhash-corpus"}) + "\n")
                documents.append(Document(ids[index], texts[index], name, line))
    pairs = [PlantedPair(ids[c], ids[b], t, s) for c, b, t, s in planted]
    manifest.write_text(json.dumps({"parameters": parameters, "planted": [asdict(p) for p in pairs]}))
    return PlantedCorpus(root, documents, pairs, ngram_length)


def load(root: Path | str) -> PlantedCorpus:
    """A corpus written by :func:`generate`, read back from its files."""
    root = Path(root)
    manifest = json.loads((root / "planted.json").read_text())
    documents = []
    for path in sorted((root / "documents").glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line, text in enumerate(handle):
                row = json.loads(text)
                documents.append(Document(row["id"], row["text"], path.name, line))
    return PlantedCorpus(root, documents, [PlantedPair(**p) for p in manifest["planted"]],
                         manifest["parameters"]["ngram_length"])


# ------------------------------------------------------------------------------ ground truth
def near_pairs(shingle_sets: dict[str, set], floor: float) -> dict[tuple[str, str], float]:
    """Every pair with Jaccard >= ``floor`` (> 0): pairs sharing no shingle have Jaccard 0, so only pairs
    that meet in the inverted index are compared, each exactly."""
    postings: dict[object, list[str]] = defaultdict(list)
    for doc_id, doc_shingles in shingle_sets.items():
        for shingle in doc_shingles:
            postings[shingle].append(doc_id)
    common: Counter = Counter()
    for holders in postings.values():
        if len(holders) > 1:
            common.update(itertools.combinations(sorted(holders), 2))
    result = {}
    for (a, b), shared in common.items():
        similarity = shared / (len(shingle_sets[a]) + len(shingle_sets[b]) - shared)
        if similarity >= floor:
            result[(a, b)] = similarity
    return result


# ------------------------------------------------------------------------------ quality measures
BINS = tuple(round(x, 2) for x in np.arange(0.0, 1.0001, 0.05))


@dataclass(frozen=True)
class Quality:
    """Recall of near pairs by similarity, and how similar each removed document is to the one kept for it."""

    pair_similarity: list[float]
    pair_found: list[bool]
    removed_similarity: list[float]

    def recall(self, at_least: float) -> float:
        found = [f for s, f in zip(self.pair_similarity, self.pair_found) if s >= at_least]
        return sum(found) / len(found) if found else float("nan")

    def pairs(self, at_least: float) -> int:
        return sum(s >= at_least for s in self.pair_similarity)

    def removed_below(self, similarity: float) -> float:
        """Fraction of removed documents whose Jaccard to their kept document is below ``similarity``."""
        values = self.removed_similarity
        return sum(s < similarity for s in values) / len(values) if values else 0.0

    def recall_curve(self, bins: Sequence[float] = BINS) -> tuple[list[float], list[float], list[int]]:
        """(bin centres, recall, pairs) for pairs grouped by similarity."""
        return _binned(self.pair_similarity, [float(f) for f in self.pair_found], bins)

    def precision_curve(self, thresholds: Iterable[float] = BINS) -> tuple[list[float], list[float]]:
        """For each threshold t: the fraction of removed documents whose Jaccard to their kept one is >= t."""
        thresholds = list(thresholds)
        return thresholds, [1.0 - self.removed_below(t) for t in thresholds]


def _binned(x: Sequence[float], y: Sequence[float], bins: Sequence[float]) -> tuple[list[float], list[float], list[int]]:
    centres, means, counts = [], [], []
    for low, high in zip(bins, bins[1:]):
        inside = [v for s, v in zip(x, y) if low <= s < high or (high == bins[-1] and s == high)]
        if inside:
            centres.append(float(low + high) / 2)
            means.append(sum(inside) / len(inside))
            counts.append(len(inside))
    return centres, means, counts


def quality(corpus: PlantedCorpus, cluster_of: Callable[[str], object], kept_for: dict[str, str],
            floor: float = 0.3) -> Quality:
    """Score a deduplication: ``cluster_of(id)`` (None or a unique value for a singleton) and ``kept_for``
    (removed id -> the id kept in its place). A near pair counts as found when both are in one cluster."""
    pairs = corpus.near_pairs(floor)
    found = []
    for a, b in pairs:
        ca, cb = cluster_of(a), cluster_of(b)
        found.append(ca is not None and ca == cb)
    removed = [corpus.similarity(removed_id, kept_id) for removed_id, kept_id in kept_for.items()]
    return Quality(list(pairs.values()), found, removed)


# ------------------------------------------------------------------------------ the two systems' results
@dataclass(frozen=True)
class Deduplication:
    """What a system decided: each clustered document's cluster, and each removed document's kept one."""

    cluster: dict[str, object]
    kept_for: dict[str, str]

    @property
    def removed(self) -> set[str]:
        return set(self.kept_for)

    def quality(self, corpus: PlantedCorpus, floor: float = 0.3) -> Quality:
        return quality(corpus, self.cluster.get, self.kept_for, floor)


def run_dolma_sql(corpus: PlantedCorpus, *, name: str = "minhash", processes: int = 2, **minhash: object) -> dict:
    """``dolma-sql dedupe`` in minhash mode over the corpus, in this process; returns its report."""
    from dolma_sql import deduper
    from dolma_sql.config.dedupe import DeduperConfig
    from dolma_sql.config.loading import config_from
    from dolma_sql.runtime.executors import build_executor

    config = config_from({"documents": [corpus.documents_glob], "processes": processes,
                          "dedupe": {"name": name, "minhash": {"attribute_name": name, **minhash}}}, DeduperConfig)
    with build_executor("local", processes=processes) as executor:
        return deduper.run(config, executor=executor, quiet=True)


def dolma_sql_result(corpus: PlantedCorpus, name: str = "minhash") -> Deduplication:
    """Clusters from the attribute files (``<name>_cluster_id``), kept documents from the lineage table."""
    import pyarrow.parquet as pq

    folder = corpus.root / "attributes" / name
    cluster = {}
    for path in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                spans = row["attributes"].get(f"{name}_cluster_id")
                if spans:
                    cluster[row["id"]] = spans[0][2]
    lineage = pq.read_table(folder / "lineage.parquet", columns=["duplicate_id", "kept_id"]).to_pydict()
    return Deduplication(cluster, dict(zip(lineage["duplicate_id"], lineage["kept_id"])))


DATATROVE_SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "datatrove_minhash.py"


def find_datatrove() -> Path | None:
    """The python of the venv holding datatrove 0.10.1: ``$DOLMA_SQL_DATATROVE``, ``<repo>/.datatrove`` or ``../.datatrove``."""
    repo = Path(__file__).resolve().parent.parent
    for candidate in (os.environ.get("DOLMA_SQL_DATATROVE"), repo / ".datatrove", repo.parent / ".datatrove"):
        if candidate and (Path(candidate) / "bin" / "python").exists() and list(Path(candidate).glob("lib/python*/site-packages/datatrove")):
            return Path(candidate) / "bin" / "python"
    return None


def datatrove_command(python: Path, stage: str, documents: Path, work: Path, *, workers: int = 2, seed: int = 1) -> list[str]:
    return [str(python), str(DATATROVE_SCRIPT), stage, str(documents), str(work), "--workers", str(workers), "--seed", str(seed)]


def datatrove_result(corpus: PlantedCorpus, python: Path, work: Path) -> Deduplication:
    """datatrove's clusters (stage 3's output in ``work``), with the document kept as dolma-sql keeps it by
    default, the first by (file, line): datatrove keeps whichever document its union-find made the root."""
    proc = subprocess.run(datatrove_command(python, "clusters", corpus.root / "documents", work),
                          capture_output=True, text=True, check=True)
    files = sorted({d.file for d in corpus.documents})
    at = {(files.index(d.file), d.line): d.id for d in corpus.documents}
    cluster, kept_for = {}, {}
    for number, members in enumerate(json.loads(proc.stdout)):
        ids = [at[tuple(member)] for member in members]  # sorted by (file, line)
        cluster.update(dict.fromkeys(ids, number))
        kept_for.update(dict.fromkeys(ids[1:], ids[0]))
    return Deduplication(cluster, kept_for)
