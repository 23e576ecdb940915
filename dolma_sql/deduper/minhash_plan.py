"""What every unit of a minhash run shares (:class:`MinhashPlan`: picklable), the document numbering, and the
signature index a run may write (``dedupe.minhash.index``) and later runs dedupe against (``against``).

Documents are numbered from 0 in input order: the documents of the ``against`` indexes first (in list order,
each in its files' order), then the run's files in order, then lines. A document's number ``g`` is its file's
``offset`` plus its line minus one; ``files.parquet`` in the work folder holds every file's offset.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import msgspec
import pyarrow as pa

from dolma_sql import storage
from dolma_sql.config.dedupe import DeduperConfig
from dolma_sql.deduper.fingerprints import fingerprinter
from dolma_sql.deduper.minhash_signatures import HASH_SCHEME, Shingling
from dolma_sql.deduper.plan import FileJob, Writing
from dolma_sql.errors import ConfigError
from dolma_sql.runtime.ledger import fingerprint
from dolma_sql.storage import urls

INDEX_FORMAT = "dolma-sql-minhash-index/1"
INDEX_MANIFEST = "index.json"


def shingling_of(config: DeduperConfig) -> Shingling:
    minhash = config.dedupe.minhash
    normalize = minhash.normalize
    return Shingling(
        minhash.shingle, minhash.ngram_length, minhash.num_bands, minhash.band_size, minhash.seed,
        normalize.nfkc, normalize.lowercase, normalize.punctuation, normalize.digits,
    )  # fmt: skip


@dataclass(frozen=True)
class MinhashPlan:
    """``work``: the run's work folder; ``signatures``: the folder of the signature tables (the index's, when one is
    written); ``keep``: first, highest or lowest; ``sharing``: units of a step running at once on one machine."""

    work: str
    signatures: str
    shingling: Shingling
    attribute: str
    keep: str
    threshold: float | None
    writing: Writing
    lineage: str
    sharing: int = 1

    @property
    def files_url(self) -> str:
        return urls.join(self.work, "files.parquet")

    def edges_url(self, band: int) -> str:
        return urls.join(self.work, f"edges-{band}.parquet")

    @property
    def members_url(self) -> str:
        """Every document of the run in a cluster: (g, cluster_id, cluster_size, removed), ordered by g."""
        return urls.join(self.work, "members.parquet")

    @property
    def report_url(self) -> str:
        """The clustering unit's figures (clusters, sizes, edges), for the report."""
        return urls.join(self.work, "clusters.json")

    def signature_url(self, job: FileJob) -> str:
        return urls.join(self.signatures, fingerprint([job.path, job.size]) + ".parquet")


@dataclass(frozen=True)
class IndexedFile:
    """A document file whose signatures a run reads: ``new`` (the run's own) or from an ``against`` index."""

    path: str
    signatures: str
    documents: int
    new: bool


def index_params(shingling: Shingling) -> dict:
    """What two indexes must share to be compared (the canary pins the word hash of this DuckDB)."""
    canary = fingerprinter(exact=False).canary()
    return {"scheme": HASH_SCHEME, "shingling": msgspec.to_builtins(shingling.__dict__), "canary": canary}


def read_index(url: str, shingling: Shingling, where: str) -> tuple[list[IndexedFile], str]:
    """The files of the index at ``url`` and its manifest's fingerprint; an index made with other parameters is refused."""
    manifest_url = urls.join(url, INDEX_MANIFEST)
    try:
        manifest = json.loads(urls.read_bytes(manifest_url))
    except FileNotFoundError:
        raise ConfigError(f"no signature index at {url} ({INDEX_MANIFEST} is missing)", path=where,
                          hint="point at a folder written by a run with dedupe.minhash.index") from None  # fmt: skip
    if manifest.get("format") != INDEX_FORMAT or manifest.get("params") != index_params(shingling):
        raise ConfigError(
            f"the signature index at {url} was made with other parameters: {manifest.get('params')}",
            path=where,
            hint="use the same shingle, ngram_length, num_bands, band_size, seed and normalize options as the run that wrote it",
        )
    files = [IndexedFile(entry["path"], urls.join(url, entry["signatures"]), entry["documents"], False) for entry in manifest["files"]]
    return files, fingerprint(manifest)


def write_index(url: str, shingling: Shingling, files: list[IndexedFile], writing: Writing) -> None:
    entries = [{"path": f.path, "signatures": urls.relative(f.signatures, url), "documents": f.documents} for f in files]
    manifest = {"format": INDEX_FORMAT, "params": index_params(shingling), "files": entries}
    storage.write_bytes(urls.join(url, INDEX_MANIFEST), json.dumps(manifest, indent=1).encode() + b"\n", staging=writing.staging)


def files_table(files: list[IndexedFile]) -> pa.Table:
    """Every file with its first document's number (``offset``)."""
    offsets, total = [], 0
    for entry in files:
        offsets.append(total)
        total += entry.documents
    return pa.table({
        "file": pa.array(range(len(files)), pa.int64()), "path": [f.path for f in files], "signatures": [f.signatures for f in files],
        "documents": pa.array([f.documents for f in files], pa.int64()),
        "offset": pa.array(offsets, pa.int64()), "new": [f.new for f in files],
    })  # fmt: skip


def write_files(plan: MinhashPlan, files: list[IndexedFile]) -> None:
    import pyarrow.parquet as pq

    with storage.staged(plan.files_url, staging=plan.writing.staging) as temp:
        pq.write_table(files_table(files), temp)


def read_files(plan: MinhashPlan) -> pa.Table:
    import pyarrow.parquet as pq

    with urls.open_input(plan.files_url) as handle:
        return pq.read_table(handle)
