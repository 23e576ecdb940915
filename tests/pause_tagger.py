"""A tagger that holds the unit it runs in until the test lets it go, for the fault tests (Ray and local).

A document whose id is ``pause`` names a folder in its text: the tagger writes ``pid-<its pid>``
there and waits for a file ``go`` in it, so a test can find the worker running that unit and kill
it, or interrupt the run, while the unit runs. Other documents get their vowel count.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from dolma_sql.tagging import Spans, tagger


@tagger("pause_v1", types=["vowels"])
def pause(batch):
    for identifier, text in zip(batch.column("id").to_pylist(), batch.column("text").to_pylist()):
        if identifier == "pause":
            folder = Path(text)
            (folder / f"pid-{os.getpid()}").touch()
            while not (folder / "go").exists():
                time.sleep(0.05)
    return {"vowels": Spans.document(batch.lengths, batch.series.str.count_matches("[aeiou]").to_numpy())}
