"""Attribute files and reports for the ``stat`` tests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np


def write_attributes(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as handle:
        for index, attributes in enumerate(rows):
            handle.write(json.dumps({"id": f"{path.stem}-{index}", "attributes": attributes}) + "\n")


def random_rows(rng: np.random.Generator, count: int) -> list[dict]:
    """Attribute rows with scores of many distinct values, lengths, fastText labels, and spans that some rows lack."""
    rows = []
    for _ in range(count):
        n = int(rng.integers(1, 30_000))
        attributes = {
            "exp__random_number_v1__random": [[0, n, float(rng.random())]],
            "exp__char_length_v1__length": [[0, n, n]],
            "exp__ft_lang__en__label__en": [[0, n, float(rng.choice([0.25, 0.5, 1.0, 1.00001, 1.2]))]],
        }
        if rng.random() < 0.7:
            starts = np.sort(rng.integers(0, n, size=int(rng.integers(0, 6))))
            attributes["bff_duplicate_paragraph_spans"] = [[int(s), int(s + rng.integers(0, 80)), 1] for s in starts]
        rows.append(attributes)
    return rows


def summaries(report: Path) -> list[dict]:
    with gzip.open(report / "summaries.jsonl.gz", "rt") as handle:
        return [json.loads(line) for line in handle]
