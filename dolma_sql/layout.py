"""Paths of the dolma layout: ``documents/…`` beside line-aligned ``attributes/<name>/…``.

Every command finds its inputs and names its outputs through these functions, so the
layout rules (and their fixes of upstream quirks) live in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dolma_sql import storage
from dolma_sql.errors import ConfigError
from dolma_sql.storage.codecs import with_codec


def swap_segment(path: str, segment: str, replacement: str, *, first_only: bool = False) -> str | None:
    """Replace the path component ``segment`` (e.g. ``documents``) with ``replacement``.

    Unlike upstream's ``str.replace("/documents/", …)`` this also recognises a leading
    relative ``documents/``. Returns ``None`` when the component is absent.
    """
    parts = path.split("/")
    hits = [i for i, part in enumerate(parts[:-1]) if part == segment]
    if not hits:
        return None
    for i in hits[:1] if first_only else hits:
        parts[i] = replacement
    return "/".join(parts)


def attribute_path(document_path: str, attribute_name: str, *, document_dir: str = "documents") -> str:
    """The attribute file of ``attribute_name`` that is line-aligned with ``document_path``."""
    swapped = swap_segment(document_path, document_dir, f"attributes/{attribute_name}")
    if swapped is None:
        raise ConfigError(
            f"{document_path} has no '{document_dir}/' component, so its attribute files cannot be located",
            hint=f"keep documents under a '{document_dir}/' folder, or set `document_dir` to the folder name they use",
        )
    return swapped


@dataclass(frozen=True)
class ShardPlan:
    """One output file of a stream, the input files whose documents it holds (in order), and their size in bytes."""

    output: str
    inputs: tuple[str, ...]
    size: int


def plan_shards(files: list[str], *, output_dir: str, stream: str, max_size_in_bytes: int, extension: str) -> list[ShardPlan]:
    """Group input files, in order, into shards of at most ``max_size_in_bytes`` input bytes.

    Mirrors dolma: sizes are on-disk (compressed) sizes, files are never split, a shard
    closes when adding the next file would exceed the limit, and an oversized file is a
    shard of its own. Unlike dolma every shard is named ``<stream>-NNNN.jsonl<ext>``
    (dolma names its last shard ``.json<ext>``).
    """
    groups: list[list[str]] = []
    sizes: list[int] = []
    for path in files:
        file_size = storage.size(path)
        if groups and sizes[-1] + file_size <= max_size_in_bytes:
            groups[-1].append(path)
            sizes[-1] += file_size
        else:
            groups.append([path])
            sizes.append(file_size)
    return [
        ShardPlan(storage.join(output_dir, f"{stream}-{index:04d}.jsonl{extension}"), tuple(group), size)
        for index, (group, size) in enumerate(zip(groups, sizes))
    ]


def is_shard_of(name: str, stream: str) -> bool:
    """Whether the file ``name`` is named as :func:`plan_shards` names a shard of ``stream``, whatever its number and codec."""
    return re.fullmatch(re.escape(stream) + r"-\d{4}\.jsonl(\.\w+)?", name) is not None


def plan_unshuffled(files: list[str], *, output_dir: str, document_dir: str = "documents", codec: str | None = None) -> list[ShardPlan]:
    """dolma's ``shuffle: false``: one output per input, at ``<output_dir>/documents/<path after documents/>``
    (the whole path, without its protocol, when it has no ``documents/`` component), compressed as its name says:
    with ``codec`` (``compression.output``), the name's compression extension is that codec's."""
    plans = []
    for path in files:
        output = storage.join(output_dir, "documents", *_tail(path, document_dir))
        plans.append(ShardPlan(output if codec is None else with_codec(output, codec), (path,), storage.size(path)))
    return plans


def _tail(path: str, document_dir: str) -> list[str]:
    parts = path.split("/")
    if document_dir in parts[:-1]:
        return parts[len(parts) - parts[::-1].index(document_dir) :]
    return [path.split("://", 1)[-1].lstrip("/")]
