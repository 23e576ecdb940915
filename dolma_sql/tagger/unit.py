"""One unit of ``tag``: a document file, read once, every tagger run on each batch, its attribute files written.

Units are picklable and :func:`tag_file` is top-level, so any executor can run them anywhere.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass

from dolma_sql import storage
from dolma_sql.errors import DolmaSqlError, InputError, raised_at
from dolma_sql.formats.attributes import encode_attribute_fields, encode_rows
from dolma_sql.formats.documents import iter_document_batches
from dolma_sql.storage.commit import remove_temps
from dolma_sql.tagger.batch import TagBatch
from dolma_sql.tagger.plugins import import_tagger_modules
from dolma_sql.tagger.registry import TaggerOutput, TaggerSpec, get_tagger, needed_fields

TAG_BATCH_BYTES = 4 << 20
"""Bytes of documents tagged at a time: smaller than the readers' shared batch, because the taggers'
intermediates (words, n-grams, paragraphs, spans) grow with the batch to several times its size, so a
tag worker's peak memory follows this figure; much smaller batches cost more CPU per document
(see docs/benchmarks.md, memory per worker)."""


@dataclass(frozen=True)
class AttributeFile:
    """One attribute file written for a document file: its URL and the taggers in it, with their key prefixes."""

    url: str
    taggers: tuple[tuple[str, str], ...]
    """``(tagger name, "<experiment>__<tagger>" key prefix)`` in the order their keys are written."""


@dataclass(frozen=True)
class TagSettings:
    """What every unit of a run shares and what, beside the taggers and keys, shapes its attribute files."""

    tagger_modules: tuple[str, ...] = ()
    seed: int = 0
    max_documents: int | None = None
    models: tuple[tuple[str, str], ...] = ()
    """Model and list paths, the taggers' ``batch.options``."""


@dataclass(frozen=True)
class TagUnit:
    """Tag the document file ``source`` (``size`` bytes) into ``outputs``; ``staging`` is dolma's ``work_dir.output``,
    ``input_staging`` its ``work_dir.input`` (where a remote ``source`` is downloaded before it is read)."""

    source: str
    size: int
    outputs: tuple[AttributeFile, ...]
    settings: TagSettings
    staging: str | None = None
    input_staging: str | None = None

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.source,)

    @property
    def key(self) -> str:
        """The unit's main output, by which the ledger knows it."""
        return self.outputs[0].url


def tag_file(unit: TagUnit) -> dict[str, float]:
    """Read ``unit.source`` once, run every tagger per batch, and commit each attribute file whole."""
    settings = unit.settings
    import_tagger_modules(settings.tagger_modules)
    names = dict.fromkeys(name for output in unit.outputs for name, _ in output.taggers)
    specs = {name: get_tagger(name) for name in names}
    fields = needed_fields(list(specs.values()))
    options = dict(settings.models)
    documents = 0
    for output in unit.outputs:
        remove_temps(output.url)  # of a writer killed before it committed
    with ExitStack() as stack:
        writers = [stack.enter_context(storage.output(output.url, staging=unit.staging)) for output in unit.outputs]
        for document_batch in iter_document_batches(
            unit.source, fields=fields, required=("id", "text"), batch_bytes=TAG_BATCH_BYTES, count_progress=True, staging=unit.input_staging
        ):
            table = document_batch.table
            if settings.max_documents is not None:
                table = table.slice(0, max(0, settings.max_documents - documents))
            if not table.num_rows:
                break
            batch = TagBatch(table, seed=settings.seed, options=options, path=unit.source)
            results = {name: _run_tagger(name, spec, batch, document_batch.first_line, unit.source) for name, spec in specs.items()}
            ids, sources = batch.column("id"), batch.column("source")
            for output, writer in zip(unit.outputs, writers):
                keyed = [k for name, prefix in output.taggers for k in specs[name].keyed(prefix, results[name])]
                writer.write(encode_rows(ids, encode_attribute_fields(len(batch), keyed), sources))
            documents += len(batch)
    return {"documents": documents, "files": 1}


def _run_tagger(name: str, spec: TaggerSpec, batch: TagBatch, first_line: int, source: str) -> TaggerOutput:
    """One tagger over one batch; an exception of its code is an error naming the tagger, the lines and where it raised."""
    try:
        return spec.run(batch)
    except DolmaSqlError:
        raise
    except Exception as error:
        raise InputError(
            f"tagger {name} failed in lines {first_line}-{first_line + len(batch) - 1}: {error!r}", path=source, hint=f"it raised at {raised_at(error)}"
        ) from error

