"""Planning ``tag``: one unit per document file, with the attribute files dolma's path rules give it."""

from __future__ import annotations

from collections.abc import Callable

from dolma_sql.config.tag import TagConfig
from dolma_sql.errors import ConfigError
from dolma_sql.layout import swap_segment
from dolma_sql.storage import urls
from dolma_sql.tagger.registry import make_variable_name
from dolma_sql.tagger.unit import AttributeFile, TagSettings, TagUnit


def plan_units(config: TagConfig, *, warn: Callable[[str], None]) -> list[TagUnit]:
    """One unit per document file (a file matched by two globs is tagged once)."""
    settings = tag_settings(config)
    names = config.tagger_names()
    return [
        TagUnit(path, urls.size(path), attribute_files(config, names, path, destination), settings, config.work_dir.output, config.work_dir.input)
        for path, destination in document_files(config, warn=warn)
    ]


def tag_settings(config: TagConfig) -> TagSettings:
    return TagSettings(
        tagger_modules=tuple(config.tagger_modules),
        seed=config.seed,
        max_documents=config.profile.steps,
        models=tuple(sorted(config.model_options().items())),
    )


def document_files(config: TagConfig, *, warn: Callable[[str], None]) -> list[tuple[str, str | None]]:
    """Each document file with its attribute file under ``--destination`` (``None`` when derived from its path).

    As upstream, a destination holds the files of its glob at their paths relative to the deepest
    folder holding them all (a single file: its folder).
    """
    if config.destination is None:
        return [(path, None) for path in urls.expand_globs(config.documents, config_path="documents", warn=warn)]
    files: dict[str, str] = {}
    for index, (pattern, destination) in enumerate(zip(config.documents, config.destination)):
        matches = urls.expand_globs([pattern], config_path=f"documents[{index}]")
        base = urls.common_parent(matches)
        for path in matches:
            files.setdefault(path, urls.join(destination, urls.relative(path, base)))
    return list(files.items())


def attribute_files(config: TagConfig, names: list[str], path: str, destination: str | None) -> tuple[AttributeFile, ...]:
    """The attribute files of one document file: one per experiment, or one per tagger without an experiment."""
    if config.experiment is not None:
        experiment = make_variable_name(config.experiment)
        taggers = tuple((name, f"{experiment}__{make_variable_name(name)}") for name in names)
        return (AttributeFile(destination or _derived_path(path, config.experiment), taggers),)
    own_prefixes = tuple((name, f"{make_variable_name(name)}__{make_variable_name(name)}") for name in names)
    if destination is not None:  # upstream: without an experiment, every tagger shares the destination file
        return (AttributeFile(destination, own_prefixes),)
    return tuple(AttributeFile(_derived_path(path, make_variable_name(name)), ((name, prefix),)) for name, prefix in own_prefixes)


def _derived_path(path: str, folder: str) -> str:
    """dolma's attribute path: the first ``documents`` folder of ``path`` becomes ``attributes/<folder>``."""
    swapped = swap_segment(path, "documents", f"attributes/{folder}", first_only=True)
    if swapped is None:
        raise ConfigError(
            f"{path} has no 'documents' path component to derive the attribute path from",
            path="documents",
            hint="keep documents under a documents/ folder or pass --destination",
        )
    return swapped


def output_folders(units: list[TagUnit]) -> list[str]:
    """The folders the units write to, each once: their write access is checked before any work."""
    return list(dict.fromkeys(urls.parent(output.url) for unit in units for output in unit.outputs))
