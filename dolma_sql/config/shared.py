"""The config parts every command shares, defined once: work folders, compression, the executor."""

from __future__ import annotations

import msgspec

from dolma_sql.storage.codecs import codec_named


class Config(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of every config struct: unknown fields are errors, and ``validate`` runs the checks
    that types cannot express (each command's config overrides it), at load time."""

    def validate(self):
        return self


class WorkDirConfig(Config):
    """dolma's ``work_dir``: local folders to stage inputs and outputs in (outputs bound for an object
    store are written here first, then uploaded)."""

    input: str | None = None
    """Local folder remote inputs are downloaded to before they are read (unset: they are streamed)."""
    output: str | None = None
    """Local folder outputs bound for an object store are written to before upload (unset: the temp folder); dedupe keeps its tables there too (any URL)."""


class CompressionConfig(Config):
    """dolma's ``compression.{input,output}``: a codec name (``gz``, ``gzip``, ``zst``, ``zstd``, ``""``/``none``),
    or nothing to go by the files' extensions."""

    input: str | None = None
    """Codec of the input files: gz, zst or none (unset: by each file's extension)."""
    output: str | None = None
    """Codec of the output files: gz, zst or none (unset: by the extension, gzip for the mixer)."""

    def codecs(self, where: str = "compression") -> tuple[str | None, str | None]:
        """The input and output codecs (``None``: by extension)."""
        return codec_named(self.input, where=f"{where}.input"), codec_named(self.output, where=f"{where}.output")


class ExecutorConfig(Config):
    """Where units run: ``local`` (a process pool of ``processes`` on this machine, the default),
    ``serial`` (the calling process alone) or ``ray`` (a task per unit on the Ray cluster at ``address``,
    its CPUs instead of ``processes``). ``allocator`` is preloaded into the workers: ``auto`` (mimalloc
    or jemalloc when installed), ``system`` or a library name."""

    kind: str = "local"
    """Where units run: local (a pool of --processes), serial (this process) or ray; --executor KIND for short."""
    address: str | None = None
    """The Ray cluster to run on with kind ray (unset: RAY_ADDRESS, else a local cluster)."""
    allocator: str = "auto"
    """Memory allocator preloaded into the workers (local or Ray): auto (mimalloc or jemalloc when installed), system, or an installed library (DOLMA_SQL_ALLOCATOR overrides it)."""
