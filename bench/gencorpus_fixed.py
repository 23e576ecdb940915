"""Run ``shared/bench/gencorpus.py`` with a fix for a livelock it has on some corpus sizes.

    python bench/gencorpus_fixed.py GENCORPUS_PY OUT_DIR --docs N --files F --seed S [--jobs J]

``TextGen.texts`` asks ``TextGen.stream`` for a fresh token stream sized to the documents still to
write; each walker's segment is trimmed to whole lines, so when the last document of a chunk is a
long-tail one (up to 400,000 characters) the trimmed stream can be shorter than it every time, and
the retry, asking for the same number of tokens again, never succeeds (seen at 1M documents in 100
and in 16 files: two workers walking for 40 CPU-minutes). Here a request for as many tokens as the
request just before it asks for twice as many, then four times, ...; a file on which no retry
happens is generated exactly as by gencorpus.py itself.
"""

import importlib.util
import sys


def main(argv: list[str]) -> int:
    generator_path, *generator_args = argv
    spec = importlib.util.spec_from_file_location("gencorpus", generator_path)
    gencorpus = importlib.util.module_from_spec(spec)
    sys.modules["gencorpus"] = gencorpus  # the (fork) pool pickles gencorpus.write_file by name
    spec.loader.exec_module(gencorpus)

    original_stream = gencorpus.TextGen.stream

    def stream(self, n_tokens: int):
        previous, factor = getattr(self, "_previous_request", (None, 1))
        factor = factor * 2 if n_tokens == previous else 1
        self._previous_request = (n_tokens, factor)
        return original_stream(self, n_tokens * factor)

    gencorpus.TextGen.stream = stream
    return gencorpus.main(generator_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
