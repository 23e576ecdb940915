"""The floors every bench prints beside dolma-sql and upstream: the same bytes read and parsed (and, for the
mixer, written) with nothing else done, or a command's kernel alone, with the libraries dolma-sql uses.

A floor runs as its own process (``python bench/floors.py KIND FILE... --processes N``), in a pool of the
same number of processes as the command it is compared with, so its RSS is measured like everything else.
Kinds (one function each, :data:`KINDS`):

- ``documents``: gunzip + JSON parse + re-serialise + gzip of every document (the mixer's floor; with
  ``--attributes``, the attribute files the mixer reads too are gunzipped and parsed);
- ``dedupe-paragraphs`` / ``dedupe-url``: gunzip + Arrow JSON parse of ``id`` and the key (``text``, or
  ``metadata.url``) + paragraph split + DuckDB's hash of every key (option ``hash: xxh3``: exact mode's
  128 bits, Polars' XXH3 string hash under two seeds), no filter and nothing written;
- ``stat``: gunzip + Arrow JSON parse of every attribute file;
- ``tokens``: the tokenizer's own ``encode_batch`` over the texts (read before the clock starts), in slices
  as dolma-sql hands them, with its default threads; ids fetched, nothing written;
- ``tag-gopher`` / ``tag-c4`` / ``tag-pii``: the tagger's kernel alone over pre-decoded Arrow batches;
  ``tag-cld2``: the ``pycld2.detect`` calls alone over each batch's distinct paragraphs;
  ``tag-all``: the four in one pass over the same batches;
- ``warc``: fastwarc's iteration over the pages of each WARC file, each decoded (dolma-sql's ``decode``: the
  text upstream decodes, by its cheapest way) and linearized (``--options '{"linearizer": ...}'``, dolma-sql's settings);
  no JSON, no taggers, nothing written.

Read+parse floors time the whole process (start-up included, as the command's own figure does); kernel
floors time only the kernel (wall: the busiest process's sum; CPU: every process's), printed on stdout as
JSON and used by :func:`floor_row` instead of the process's figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from common import CorpusInfo, Row, measure

BATCH_BYTES = 8 << 20
"""Bytes of JSON lines per parsed batch: dolma-sql's reader's batch size (``formats.lines.BATCH_BYTES``)."""

TAGGERS = {"gopher": "gopher_v1", "c4": "c4_v2", "pii": "pii_regex_with_counts_fast_v2"}


# ------------------------------------------------------------------------------ reading
def _line_blocks(path: str) -> Iterator[bytes]:
    """The file's decompressed bytes in blocks of whole lines of about :data:`BATCH_BYTES` (ISA-L's gunzip)."""
    from isal import igzip

    rest = b""
    with igzip.open(path, "rb") as reader:
        while chunk := reader.read(BATCH_BYTES):
            data = rest + chunk if rest else chunk
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            if cut:
                yield data[:cut]
    if rest:
        yield rest


def _parsed(path: str, schema=None) -> Iterator:
    """Arrow tables of each block, as dolma-sql's fast path parses them (explicit all-string schema when given)."""
    import pyarrow as pa
    import pyarrow.json as pj

    for block in _line_blocks(path):
        options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore") if schema is not None else None
        yield pj.read_json(pa.BufferReader(block), read_options=pj.ReadOptions(use_threads=False, block_size=len(block) + 1),
                           parse_options=options)


def _documents_schema(*fields: str):
    import pyarrow as pa

    types = {"id": pa.string(), "text": pa.string(), "metadata": pa.struct([("url", pa.string())])}
    return pa.schema([(name, types[name]) for name in fields])


# ------------------------------------------------------------------------------ kinds
class Clock:
    """Kernel wall and CPU seconds of this process, summed over the timed sections."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0

    def __enter__(self) -> Clock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall += time.perf_counter() - self._wall
        self.cpu += time.process_time() - self._cpu


def documents_floor(path: str, out: str, options: dict, clock: Clock) -> int:
    """Decompress, parse every JSON line, re-serialise, recompress: the work no mixer can skip (and parse
    the attribute files of ``options["attributes"]`` beside it, as a mixer must)."""
    import msgspec
    from isal import igzip

    decoder, encoder = msgspec.json.Decoder(), msgspec.json.Encoder()
    count = 0
    with igzip.open(path, "rb") as reader, igzip.open(out, "wb") as writer:
        for line in reader:
            writer.write(encoder.encode(decoder.decode(line)) + b"\n")
            count += 1
    for name in options.get("attributes", ()):
        with igzip.open(path.replace("/documents/", f"/attributes/{name}/"), "rb") as reader:
            for line in reader:
                decoder.decode(line)
    return count


def dedupe_floor(mode: str) -> Callable[[str, str, dict, Clock], int]:
    def floor(path: str, out: str, options: dict, clock: Clock) -> int:
        import duckdb
        import pyarrow as pa
        import pyarrow.compute as pc

        import polars as pl

        from dolma_sql.deduper.fingerprints import EXACT_SEEDS

        connection = duckdb.connect(config={"threads": 1})
        exact = options.get("hash") == "xxh3"
        count = 0
        for table in _parsed(path, _documents_schema("id", "text" if mode == "paragraphs" else "metadata")):
            count += table.num_rows
            if mode == "paragraphs":
                keys = pc.list_flatten(pc.split_pattern(table.column("text").combine_chunks(), "\n"))
            else:
                keys = pc.struct_field(table.column("metadata").combine_chunks(), "url")
            if exact:  # exact mode's 128 bits: Polars' XXH3 string hash under its two seeds
                series = pl.Series(keys)
                for seed in EXACT_SEEDS:
                    series.hash(seed).to_numpy()
                continue
            connection.register("keys", pa.table({"k": keys}))
            connection.sql("SELECT hash(k) AS h FROM keys").to_arrow_table()
            connection.unregister("keys")
        return count

    return floor


def stat_floor(path: str, out: str, options: dict, clock: Clock) -> int:
    """Every attribute line parsed by Arrow's JSON reader (one inferred type per block, as ``stat`` reads them)."""
    return sum(table.num_rows for table in _parsed(path))


def tokens_floor(path: str, out: str, options: dict, clock: Clock) -> int:
    """``encode_batch`` of the tokenizer, alone: the texts are read first, then encoded in slices of dolma-sql's size."""
    from tokenizers import Tokenizer

    from dolma_sql.tokenizer.tokenizer import ENCODE_CHARS

    tokenizer = Tokenizer.from_file(options["tokenizer"])
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    texts = [text for table in _parsed(path, _documents_schema("id", "text")) for text in table.column("text").to_pylist()]
    texts = [text.strip() for text in texts if text and text.strip()]
    encode(texts[:16], add_special_tokens=False)  # the first call starts the thread pool
    with clock:
        first = chars = 0
        for index, text in enumerate(texts):
            chars += len(text)
            if chars >= ENCODE_CHARS or index == len(texts) - 1:
                for encoding in encode(texts[first : index + 1], add_special_tokens=False):
                    encoding.ids  # noqa: B018  (the ids are the output)
                first, chars = index + 1, 0
    return len(texts)


def _cld2_calls(batch, clock: Clock) -> None:
    import pycld2

    from dolma_sql.udfs.language import paragraph_texts

    texts = list(dict.fromkeys(paragraph_texts(batch).text.to_pylist()))  # the distinct texts dolma-sql detects
    with clock:
        for text in texts:
            try:
                pycld2.detect(text)
            except pycld2.error:
                pass


def tag_floor(families: Sequence[str]) -> Callable[[str, str, dict, Clock], int]:
    def floor(path: str, out: str, options: dict, clock: Clock) -> int:
        from dolma_sql.tagger.batch import TagBatch
        from dolma_sql.tagger.registry import get_tagger

        specs = [get_tagger(TAGGERS[family]) for family in families if family in TAGGERS]
        count = 0
        for table in _parsed(path, _documents_schema("id", "text")):
            if not count:  # the kernels' first call imports their libraries: not the kernel's work
                warm_up = TagBatch(table.slice(0, 16), path=path)
                for spec in specs:
                    spec.run(warm_up)
                if "cld2" in families:
                    _cld2_calls(warm_up, Clock())
            batch = TagBatch(table, path=path)
            count += len(batch)
            for spec in specs:
                with clock:
                    spec.run(batch)
            if "cld2" in families:
                _cld2_calls(batch, clock)
        return count

    return floor


def warc_floor(path: str, out: str, options: dict, clock: Clock) -> int:
    """Every page of a WARC file decoded and linearized; the text is dropped."""
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    from dolma_sql.warc.linearizers import make_linearizer
    from dolma_sql.warc.records import decode

    linearize = make_linearizer(options["linearizer"])
    pages = 0
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream, record_types=WarcRecordType.response | WarcRecordType.resource):
            html, _ = decode(record.reader.read(), record.http_charset)
            if html:
                linearize(html)
                pages += 1
    return pages


KINDS: dict[str, Callable[[str, str, dict, Clock], int]] = {
    "documents": documents_floor,
    "dedupe-paragraphs": dedupe_floor("paragraphs"),
    "dedupe-url": dedupe_floor("url"),
    "stat": stat_floor,
    "tokens": tokens_floor,
    **{f"tag-{family}": tag_floor([family]) for family in (*TAGGERS, "cld2")},
    "tag-all": tag_floor([*TAGGERS, "cld2"]),
    "warc": warc_floor,
}
KERNEL_KINDS = {"tokens", *(kind for kind in KINDS if kind.startswith("tag-"))}


# ------------------------------------------------------------------------------ running
def _run_task(task: tuple[str, str, str, dict]) -> tuple[int, int, float, float]:
    kind, path, out, options = task
    clock = Clock()
    count = KINDS[kind](path, out, options, clock)
    return os.getpid(), count, clock.wall, clock.cpu


def floor_cmd(kind: str, files: Sequence[Path], processes: int, out_dir: Path | None = None, **options) -> list[str]:
    """The floor's command line (a process of its own, measured like the systems it is compared with)."""
    return [sys.executable, str(Path(__file__).resolve()), kind, *map(str, files), "--processes", str(processes),
            *(["--out", str(out_dir)] if out_dir else []), "--options", json.dumps(options)]


def floor_row(system: str, kind: str, info: CorpusInfo, processes: int, files: Sequence[Path] | None = None,
              out_dir: Path | None = None, env: dict[str, str] | None = None, **options) -> Row:
    """Measure a floor over ``files`` (default: the corpus's documents); a kernel floor's row carries the
    kernel's seconds, its note the whole process's. ``env``: added to the floor process's environment."""
    result = measure(floor_cmd(kind, files or info.files, processes, out_dir, **options), env=env)
    row = Row.of(system, result, info)
    if row.ok and kind in KERNEL_KINDS:
        kernel = json.loads(result.stdout.strip().splitlines()[-1])
        row.note = f"kernel alone; its process {row.seconds:.1f} s / {row.cpu_seconds:.1f} CPU s with reading"
        row.seconds, row.cpu_seconds = kernel["seconds"], kernel["cpu_seconds"]
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=list(KINDS))
    parser.add_argument("files", nargs="+")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--out", type=Path, help="where a writing floor writes (documents)")
    parser.add_argument("--options", default="{}", help="JSON object of the kind's options")
    args = parser.parse_args(argv)
    options = json.loads(args.options)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    tasks = [(args.kind, path, str(args.out / Path(path).name) if args.out else "", options) for path in args.files]
    if args.processes == 1:
        results = list(map(_run_task, tasks))
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
            results = list(pool.imap_unordered(_run_task, tasks))
    walls: dict[int, float] = {}
    for pid, _, wall, _ in results:
        walls[pid] = walls.get(pid, 0.0) + wall
    print(json.dumps({"documents": sum(r[1] for r in results), "seconds": max(walls.values(), default=0.0),
                      "cpu_seconds": sum(r[3] for r in results)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
