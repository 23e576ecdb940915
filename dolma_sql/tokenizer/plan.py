"""Planning a tokens run: input files cut into groups as dolma cuts them, one unit per group, and a
destination that is empty, resumable or overwritten."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from math import ceil, log10

from dolma_sql import storage
from dolma_sql.config.tokens import TokensConfig
from dolma_sql.errors import ConfigError
from dolma_sql.runtime.ledger import LEDGER_FOLDER, RECORD_SUFFIX, Ledger
from dolma_sql.storage import urls
from dolma_sql.tokenizer.tokenizer import DocumentTokenizer


@dataclass(frozen=True)
class GroupUnit:
    """One writer's work: its input files (consumed from the end, as dolma pops them) and output prefix."""

    group: int
    files: tuple[str, ...]
    file_sizes: tuple[int, ...]
    prefix: str
    config: TokensConfig

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.files

    @property
    def key(self) -> str:
        """The group's first memmap: the output the ledger knows the unit by."""
        return f"{self.prefix}-00000.npy"

    @property
    def size(self) -> int:
        return sum(self.file_sizes)


@dataclass(frozen=True)
class TokensPlan:
    files: int
    groups: int
    units: list[GroupUnit]
    ledger: Ledger | None


def plan_tokens(config: TokensConfig, *, warn: Callable[[str], None] | None = None) -> TokensPlan:
    """Check the tokenizer, group the files and prepare the destination (nothing is written for a dry run)."""
    tokenizer = DocumentTokenizer(config.tokenizer, config.dtype)
    if warn is not None:
        for message in option_warnings(tokenizer):
            warn(message)
    files = storage.expand_globs(config.documents, config_path="documents", warn=warn)
    groups = plan_groups(files, processes=config.processes, files_per_process=config.files_per_process, seed=config.seed)
    if config.dryrun:
        return TokensPlan(len(files), len(groups), [], None)
    units = [
        GroupUnit(group, tuple(paths), tuple(map(urls.size, paths)), part_prefix(config.destination, group, len(groups)), config)
        for group, paths in enumerate(groups)
    ]
    ledger = Ledger("tokens", output_options(config, groups, tokenizer), resume="rerun the same command with --resume")
    ledger.track_inputs({unit.key: unit.inputs for unit in units})
    prepare_destination(config, ledger, units)
    return TokensPlan(len(files), len(groups), units, ledger)


def option_warnings(tokenizer: DocumentTokenizer) -> list[str]:
    """What upstream warns about, or refuses where dolma-sql goes on: a missing EOS id, a dtype wider than needed."""
    messages = []
    if tokenizer.options.eos_token_id is None:
        messages.append("no tokenizer.eos_token_id: documents end without an end-of-sequence token, only their BOS token separates them")
    if tokenizer.dtype != tokenizer.needed_dtype:
        messages.append(
            f"dtype {tokenizer.dtype.name} is wider than the vocabulary of {tokenizer.vocab_size:,} ids needs: the memmaps take "
            f"{tokenizer.dtype.itemsize // tokenizer.needed_dtype.itemsize}x the space of {tokenizer.needed_dtype.name} ones "
            f"(dolma 1.2.1 refuses any dtype but {tokenizer.needed_dtype.name})"
        )
    return messages


def plan_groups(files: list[str], *, processes: int, files_per_process: int | None, seed: int) -> list[list[str]]:
    """Shuffle files with ``seed`` and cut them into groups as dolma does.

    A group holds ``min(files_per_process, len(files) / processes)`` files (rounded at each cut),
    so there are ``processes`` groups unless ``files_per_process`` asks for smaller ones.
    """
    files = list(files)
    random.Random(seed).shuffle(files)
    step = min(files_per_process or float("inf"), len(files) / processes)
    groups = []
    position = 0.0
    while position < len(files):
        group = files[int(round(position)) : int(round(position + step))]
        if group:
            groups.append(group)
        position += step
    return groups


def part_prefix(destination: str, group: int, groups: int) -> str:
    digits = int(ceil(log10(groups + 1)))
    return urls.join(destination, f"part-{group:0{digits}d}")


def output_options(config: TokensConfig, groups: list[list[str]], tokenizer: DocumentTokenizer) -> dict:
    """Everything that shapes the outputs: a resumed run must have the same, or its outputs would mix two runs."""
    return {
        "groups": groups,
        "tokenizer": config.tokenizer,
        "tokenizer_sha256": tokenizer.sha256,
        "dtype": tokenizer.dtype.name,
        "fields": config.fields,
        "seed": config.seed,
        "batch_size": config.batch_size,
        "ring_size": config.ring_size,
        "sample_ring_prop": config.sample_ring_prop,
        "max_size": config.max_size,
    }


def prepare_destination(config: TokensConfig, ledger: Ledger, units: list[GroupUnit]) -> None:
    """Refuse a non-empty destination unless resuming this very run or overwriting; fail early if it is not writable."""
    destination = config.destination
    if urls.isfile(destination):
        raise ConfigError("destination is a file", path=destination, hint="pass a directory")
    records = [name for name in urls.listdir(urls.join(destination, LEDGER_FOLDER)) if name.endswith(RECORD_SUFFIX)]
    entries = _earlier_entries(destination, records)
    if entries and config.resume:
        strangers = _outputs_of_other_runs(entries, records, ledger, units)
        if strangers:
            raise ConfigError(
                f"cannot resume: the run in this destination used different options or inputs (it left {strangers[0]})",
                path=destination,
                hint="rerun with the original options and inputs, or pass --overwrite",
            )
    elif entries and not config.overwrite:
        raise ConfigError(
            "destination is not empty",
            path=destination,
            hint="pass --resume to finish an interrupted run, --overwrite to replace its part-* files, or choose another directory",
        )
    storage.check_writable(destination, where="destination")
    if entries and config.overwrite:
        for name in entries:
            if name.startswith("part-"):
                urls.remove(urls.join(destination, name))
        urls.remove_tree(urls.join(destination, LEDGER_FOLDER))


def _earlier_entries(destination: str, records: list[str]) -> list[str]:
    """What earlier runs left in ``destination``: its ledger folder counts once it holds a record (``records``:
    a run killed before its first group finished leaves only its lock there, which is no output)."""
    return [name for name in urls.listdir(destination) if name != LEDGER_FOLDER or records]


def _outputs_of_other_runs(entries: list[str], records: list[str], ledger: Ledger, units: list[GroupUnit]) -> list[str]:
    """Ledger records that are not this run's (another fingerprint of options), and part files that no
    group of this run writes (another grouping): a resumed run would mix its outputs with them."""
    ours = {urls.name(ledger.record_url(unit.key)) for unit in units}
    strangers = [urls.join(LEDGER_FOLDER, name) for name in records if name not in ours]
    prefixes = tuple(urls.name(unit.prefix) + "-" for unit in units)
    return strangers + [name for name in entries if name.startswith("part-") and not name.startswith(prefixes)]
