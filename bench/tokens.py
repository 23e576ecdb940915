"""Tokens benchmark: upstream ``dolma tokens`` vs ``dolma-sql tokens`` on the same generated corpus.

    python bench/tokens.py [--docs 200000] [--files 20] [--processes 2] [--tokenizer gpt-neo|llama]

Both run dolma's documented invocation (``--documents GLOB --destination DIR --tokenizer.name_or_path
tokenizer.json --tokenizer.eos_token_id … --processes N``) one after the other; the table gives
seconds, CPU seconds (the fairer figure on a busy machine), docs/s, MB/s of uncompressed input,
tokens/s, peak RSS of the process tree and of each process, the speed-ups, and how many times the floor each
costs: the tokenizer's own ``encode_batch`` over the same texts in the same number of processes with its default
threads, with no I/O (``floors.py``, kind ``tokens``). Then both outputs are checked to hold the same token sequence for every document
(keyed by source file and line; the order differs because upstream's is not reproducible).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from pathlib import Path

from common import CACHE, SHARED, Row, corpus, corpus_info, dolma_sql_cmd, measure, oracle_dolma, print_table
from floors import floor_row

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from dolma_sql.runtime.tuning import allocator_environment  # noqa: E402
from dolma_sql.tokenizer import iter_documents, tokens_stats  # noqa: E402

FLOOR = "floor: the tokenizer's encode_batch alone"
TOKENIZERS = SHARED / "conformance" / "dolma-669f534" / "tests" / "data" / "tokenizer"
TOKENIZER_FLAGS = {
    "gpt-neo": ["--tokenizer.name_or_path", str(TOKENIZERS / "gpt-neo-test-tokenizer.json"),
                "--tokenizer.eos_token_id", "50279", "--tokenizer.pad_token_id", "1"],
    "llama": ["--tokenizer.name_or_path", str(TOKENIZERS / "llama-test-tokenizer.json"),
              "--tokenizer.bos_token_id", "1", "--tokenizer.eos_token_id", "2"],
}


def digests(destination: Path) -> dict[tuple[str, int], bytes]:
    """(source file name, line) -> digest of the document's tokens, so memory stays small."""
    return {
        (os.path.basename(doc.src), doc.loc): hashlib.blake2b(doc.tokens.tobytes(), digest_size=12).digest()
        for doc in iter_documents(str(destination))
    }


def compare(upstream: Path, ours: Path) -> str:
    left, right = digests(upstream), digests(ours)
    if left == right:
        return f"identical tokens for all {len(left):,} documents"
    missing, extra = left.keys() - right.keys(), right.keys() - left.keys()
    differ = [key for key in left.keys() & right.keys() if left[key] != right[key]]
    return f"MISMATCH: {len(missing)} missing, {len(extra)} extra, {len(differ)} differ (e.g. {(sorted(missing) + sorted(differ))[:3]})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--tokenizer", choices=sorted(TOKENIZER_FLAGS), default="gpt-neo")
    parser.add_argument("--skip-upstream", action="store_true", help="only time dolma-sql (no ratio)")
    args = parser.parse_args()

    info = corpus_info(corpus(args.docs, args.files))
    out = CACHE / f"tokens-{args.docs}-{args.files}-p{args.processes}-{args.tokenizer}"
    shutil.rmtree(out, ignore_errors=True)
    common_flags = ["--documents", info.documents_glob, *TOKENIZER_FLAGS[args.tokenizer], "--processes", str(args.processes)]
    print(f"[bench] {info.docs:,} docs, {info.bytes_uncompressed / 1e6:,.0f} MB in {len(info.files)} files, "
          f"{args.tokenizer} tokenizer, {args.processes} processes", file=sys.stderr)

    systems = [("dolma-sql", [*dolma_sql_cmd(), "tokens"])]
    if not args.skip_upstream:
        systems.insert(0, ("upstream dolma 1.2.1", [str(oracle_dolma()), "tokens"]))
    rows, outputs = [], {}
    for name, command in systems:
        destination = out / name.split()[0]
        print(f"[bench] running {name} ...", file=sys.stderr)
        result = measure([*command, *common_flags, "--destination", str(destination)], cwd=out.parent)
        note = ""
        if result.returncode == 0:
            stats = tokens_stats(str(destination))
            note = (f"{stats['tokens'] / result.seconds:,.0f} tokens/s, {stats['tokens'] / result.cpu_seconds:,.0f} tokens per CPU s; "
                    f"{stats['documents']:,} docs, {stats['tokens']:,} tokens")
            outputs[name] = destination
        rows.append(Row.of(name, result, info, note=note))
    tokenizer_file = TOKENIZER_FLAGS[args.tokenizer][TOKENIZER_FLAGS[args.tokenizer].index("--tokenizer.name_or_path") + 1]
    print("[bench] running the floor (encode_batch alone) ...", file=sys.stderr)
    # with the allocator dolma-sql's workers preload (the tokenizer's allocations are much of its time)
    allocator = allocator_environment("auto")
    rows.append(floor_row(FLOOR, "tokens", info, args.processes, env=allocator, tokenizer=tokenizer_file))
    rows[-1].note += f"; LD_PRELOAD={allocator.get('LD_PRELOAD', '(glibc)')}"
    print_table(rows, title=f"dolma tokens: {info.docs:,} docs, {args.tokenizer}, --processes {args.processes} (target: ≤ 1.3× the floor)",
                floors={"÷ floor": FLOOR})
    if len(outputs) == 2:
        print("[bench] check:", compare(*outputs.values()))
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
