"""``dolma-sql tag``: run taggers over document files and write line-aligned attribute files.

Accepts dolma's invocation unchanged (``--documents``, ``--taggers``, ``--experiment``,
``--destination``, ``--processes``, ``--tagger_modules``, ``--ignore_existing``, ``-c`` configs and
dotted names such as ``--work_dir.output``). Finished files are marked next to their output
(``<dir>/.dolma-sql/<file>.done``) and skipped on rerun unless ``--ignore_existing``.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

import msgspec
import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.config import WorkDirConfig
from dolma_sql.errors import ConfigError
from dolma_sql.layout import swap_segment
from dolma_sql.storage import expand_globs

if TYPE_CHECKING:  # the tagging runtime (numpy, pyarrow, …) is imported when the command runs
    from dolma_sql.tagging import TagUnit


class ProfileConfig(msgspec.Struct, forbid_unknown_fields=True):
    enable: bool = False
    output: str | None = None
    steps: int | None = None
    sort_key: str = "tottime"
    lines: int = 100


class ModelsConfig(msgspec.Struct, forbid_unknown_fields=True):
    """Local model and list files (upstream downloads them; dolma-sql never downloads at run time)."""

    ft_lang_id: str | None = None
    fasttext: str | None = None
    jigsaw_hatespeech: str | None = None
    jigsaw_nsfw: str | None = None
    dclm_oh_eli5: str | None = None
    dolma17_quality: str | None = None
    url_blocklist: list[str] = []


class TagConfig(msgspec.Struct, forbid_unknown_fields=True):
    """dolma's ``TaggerConfig`` plus ``seed`` (for ``random_number_v1``) and ``models`` (local model/list paths)."""

    documents: list[str] = []
    destination: list[str] | None = None
    tagger_modules: list[str] = []
    taggers: list[str] = []
    experiment: str | None = None
    processes: int = 1
    ignore_existing: bool = False
    debug: bool = False
    profile: ProfileConfig = msgspec.field(default_factory=ProfileConfig)
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    dryrun: bool = False
    seed: int = 0
    models: ModelsConfig = msgspec.field(default_factory=ModelsConfig)


def model_options(config: TagConfig) -> dict[str, str]:
    """The configured paths as tagger options (list values joined with the path separator)."""
    options = {}
    for name, value in msgspec.structs.asdict(config.models).items():
        if value:
            options[name] = os.pathsep.join(value) if isinstance(value, list) else value
    return options


HYPHENATED = {"--tagger-modules": "--tagger_modules", "--ignore-existing": "--ignore_existing", "--no-ignore-existing": "--no-ignore_existing"}


def plan_units(config: TagConfig) -> list[TagUnit]:
    """One unit per document file, with the attribute file(s) it writes (dolma's path rules)."""
    from dolma_sql.runtime.progress import console

    if not config.taggers:
        raise ConfigError("no taggers given", path="taggers", hint="pass --taggers NAME... (see `dolma-sql list`)")
    if config.destination is not None and len(config.destination) != len(config.documents):
        raise ConfigError(
            f"{len(config.destination)} destinations for {len(config.documents)} document globs",
            path="destination",
            hint="give one destination directory per --documents entry",
        )
    names = list(dict.fromkeys(config.taggers))
    seen: set[str] = set()
    units = []
    for index, pattern in enumerate(config.documents):
        try:
            files = [f for f in expand_globs([pattern], config_path="documents") if f not in seen]
        except ConfigError:
            console.print(f"[yellow]warning:[/] no documents found for {pattern!r}")
            continue
        seen.update(files)
        base = os.path.dirname(files[0]) if len(files) == 1 else os.path.commonpath([os.path.dirname(f) for f in files])
        for path in files:
            relative = os.path.relpath(path, base)
            destination = None if config.destination is None else os.path.join(config.destination[index], relative)
            units.append(_unit(config, names, path, destination))
    if not units:
        raise ConfigError(f"no documents found for {config.documents!r}", path="documents", hint="check the globs (relative to " + os.getcwd() + ")")
    return units


def _unit(config: TagConfig, names: list[str], path: str, destination: str | None) -> TagUnit:
    from dolma_sql.tagging import OutputFile, TagUnit, make_variable_name, unit_fingerprint

    def default_path(directory: str) -> str:
        swapped = swap_segment(path, "documents", f"attributes/{directory}", first_only=True)
        if swapped is None:
            raise ConfigError(
                f"{path} has no 'documents' path component to derive the attribute path from",
                path="documents",
                hint="keep documents under a documents/ folder or pass --destination",
            )
        return swapped

    if config.experiment is not None:
        experiment = make_variable_name(config.experiment)
        taggers = tuple((n, f"{experiment}__{make_variable_name(n)}") for n in names)
        outputs = (OutputFile(destination or default_path(config.experiment), taggers),)
    elif destination is not None:  # upstream: without an experiment, every tagger shares the destination file
        outputs = (OutputFile(destination, tuple((n, f"{make_variable_name(n)}__{make_variable_name(n)}") for n in names)),)
    else:
        outputs = tuple(
            OutputFile(default_path(make_variable_name(n)), ((n, f"{make_variable_name(n)}__{make_variable_name(n)}"),)) for n in names
        )
    unit = TagUnit(
        path, outputs, tuple(config.tagger_modules), config.seed, max_documents=config.profile.steps, options=tuple(sorted(model_options(config).items()))
    )
    return dataclasses.replace(unit, fingerprint=unit_fingerprint(unit))


def run_tag(config: TagConfig, *, quiet: bool = False) -> dict[str, float]:
    processes = 1 if config.debug else config.processes
    if processes > 1:  # one process per core: polars reads this when imported, here and in the workers
        os.environ.setdefault("POLARS_MAX_THREADS", str(max(1, (os.cpu_count() or 1) // processes)))
    from dolma_sql.runtime.local import LocalExecutor
    from dolma_sql.runtime.progress import console
    from dolma_sql.runtime import run_units
    from dolma_sql.tagging import check_taggers, import_tagger_modules, tag_file, unit_is_done

    import_tagger_modules(config.tagger_modules)
    check_taggers(list(dict.fromkeys(config.taggers)), model_options(config))
    units = plan_units(config)
    todo = units if config.ignore_existing else [u for u in units if not unit_is_done(u)]
    if len(todo) < len(units) and not quiet:
        console.print(f"skipping {len(units) - len(todo)} of {len(units)} files already tagged (pass --ignore_existing to redo them)")
    if config.dryrun:
        console.print(msgspec.json.format(msgspec.json.encode(config)).decode())
        return {}
    # this process has the taggers loaded and only waits for results: it tags files too
    return run_units(tag_file, todo, executor=LocalExecutor(processes, caller_works=True), label="tag", quiet=quiet)


def register(app: typer.Typer) -> None:
    @app.command("tag", context_settings=DOLMA_FLAGS, help="Run taggers over documents and write attribute files (dolma tag).")
    def tag(ctx: typer.Context) -> None:
        ctx.args[:] = [HYPHENATED.get(arg, arg) for arg in ctx.args]
        config = command_config(ctx, TagConfig)
        run_tag(config)
