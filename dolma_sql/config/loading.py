"""Loading dolma configs: a ``-c`` JSON/YAML file, then dotted CLI flags, validated into typed structs.

Every command describes its options as :mod:`msgspec` Structs (``forbid_unknown_fields``),
so a config is checked completely at load time, before any work starts, and errors carry
the config path of the field (``streams[0].span_replacement[0].min_score``).

Flags use dolma's dotted names (``--dedupe.paragraphs.attribute_name X``,
``--no-bloom_filter.read_only``, ``--documents a b c``); values override the file.
``${oc.env:VAR}`` / ``${oc.env:VAR,default}`` and ``${other.key}`` interpolations are resolved
as OmegaConf does.
"""

from __future__ import annotations

import os
import re
import types
import typing
from typing import Any, TypeVar

import msgspec
import yaml

from dolma_sql.errors import ConfigError

T = TypeVar("T")

_INTERPOLATION = re.compile(r"\$\{([^${}]+)\}")


def read_config_file(path: str) -> dict:
    """Parse a JSON or YAML config file into a dict (YAML is a superset of the JSON dolma uses)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except FileNotFoundError:
        raise ConfigError("config file not found", path=path, hint="pass an existing JSON or YAML file to -c") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise ConfigError(
            f"not valid JSON/YAML: {getattr(error, 'problem', error)}",
            path=path,
            line=mark.line + 1 if mark else None,
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"expected a mapping at the top level, got {type(data).__name__}", path=path)
    return data


def interpolate(data: Any, root: dict | None = None, where: str = "") -> Any:
    """Resolve ``${oc.env:VAR[,default]}`` and ``${dotted.key}`` references throughout ``data``."""
    root = data if root is None else root
    if isinstance(data, dict):
        return {key: interpolate(value, root, _join(where, key)) for key, value in data.items()}
    if isinstance(data, list):
        return [interpolate(value, root, f"{where}[{index}]") for index, value in enumerate(data)]
    if not isinstance(data, str) or "${" not in data:
        return data
    whole = _INTERPOLATION.fullmatch(data)
    if whole:  # a lone reference keeps the referenced value's type
        return _resolve(whole.group(1), root, where)
    return _INTERPOLATION.sub(lambda match: str(_resolve(match.group(1), root, where)), data)


def _resolve(reference: str, root: dict, where: str) -> Any:
    if reference.startswith("oc.env:"):
        name, _, default = reference[len("oc.env:") :].partition(",")
        value = os.environ.get(name.strip())
        if value is None:
            if not default:
                raise ConfigError(
                    f"environment variable {name.strip()!r} is not set", path=where or None, hint=f"export {name.strip()}=..."
                )
            value = default.strip().strip("'\"")
        return value
    if ":" in reference:
        raise ConfigError(f"unsupported interpolation ${{{reference}}}", path=where or None, hint="only oc.env and key references are resolved")
    node: Any = root
    for part in reference.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(f"interpolation ${{{reference}}} refers to a missing key", path=where or None)
        node = node[part]
    return interpolate(node, root, reference)


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def parse_dotted_flags(args: list[str], schema: type) -> dict:
    """Turn ``--a.b value`` / ``--flag`` / ``--no-flag`` / ``--list v1 v2`` into a nested dict."""
    result: dict = {}
    index = 0
    while index < len(args):
        token = args[index]
        if not token.startswith("--"):
            raise ConfigError(f"unexpected argument {token!r}", hint="options look like --name value (dolma's dotted names)")
        name = token[2:]
        value_inline = None
        if "=" in name:
            name, value_inline = name.split("=", 1)
        negated = name.startswith("no-") and _leaf_type(schema, name[3:]) is not None
        if negated:
            name = name[3:]
        leaf = _leaf_type(schema, name)
        if leaf is None:
            raise ConfigError(f"unknown option --{name}", hint=_suggest(name, _all_dotted(schema)))
        index += 1
        values: list[str] = []
        if value_inline is not None:
            values = [value_inline]
        else:
            while index < len(args) and not (args[index].startswith("--") and len(args[index]) > 2):
                values.append(args[index])
                index += 1
        if _is_bool(leaf):
            if len(values) > 1:
                raise ConfigError(f"--{name} takes at most one value")
            value: Any = (not negated) if not values else values[0].lower() in ("1", "true", "yes")
        elif _is_list(leaf):
            value = values
        else:
            if len(values) != 1:
                raise ConfigError(f"--{name} takes exactly one value, got {len(values)}")
            value = values[0]
            if _unwrap_optional(leaf) in (int, float) and re.fullmatch(r"[+-]?[\d_.eE+-]+", value):
                value = value.replace("_", "")  # dolma's docs write counts as 6_000_000
        _set_dotted(result, name, value)
    return result


def _unwrap_optional(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(tp) if arg is not type(None)]
        if len(options) == 1:
            return options[0]
    return tp


def _is_bool(tp: Any) -> bool:
    return _unwrap_optional(tp) is bool


def _is_list(tp: Any) -> bool:
    return typing.get_origin(_unwrap_optional(tp)) in (list, tuple)


def _is_struct(tp: Any) -> bool:
    tp = _unwrap_optional(tp)
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _leaf_type(schema: type, dotted: str) -> Any:
    node: Any = schema
    for part in dotted.split("."):
        if not _is_struct(node):
            return None
        hints = typing.get_type_hints(_unwrap_optional(node))
        fields = {field.encode_name: field.name for field in msgspec.structs.fields(_unwrap_optional(node))}
        if part not in fields:
            return None
        node = hints[fields[part]]
    return None if _is_struct(node) else node


def _all_dotted(schema: type, prefix: str = "") -> list[str]:
    names = []
    hints = typing.get_type_hints(schema)
    for field in msgspec.structs.fields(schema):
        tp = hints[field.name]
        name = _join(prefix, field.encode_name)
        names.extend(_all_dotted(_unwrap_optional(tp), name) if _is_struct(tp) else [name])
    return names


def _suggest(name: str, choices: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, choices, n=3)
    return f"did you mean {', '.join('--' + c for c in close)}?" if close else "see --help for the options"


def _set_dotted(target: dict, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value


def deep_merge(base: dict, override: dict) -> dict:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def to_struct(data: dict, schema: type[T], *, source: str | None = None) -> T:
    """Validate ``data`` into ``schema``; errors name the offending field's config path."""
    try:
        return msgspec.convert(data, schema, strict=False)
    except msgspec.ValidationError as error:
        message = str(error)
        field = None
        match = re.search(r" - at `\$(.*)`$", message)
        if match:
            message = message[: match.start()]
            field = match.group(1).lstrip(".")
        location = f"{source}: {field}" if source and field else (field or source)
        raise ConfigError(message, path=location) from None


def load_config(schema: type[T], *, config_file: str | None, flags: list[str], defaults: dict | None = None) -> T:
    """File (if any), then flags, then interpolation, then typed validation, then the config's own checks."""
    data = deep_merge(defaults or {}, read_config_file(config_file) if config_file else {})
    data = deep_merge(data, parse_dotted_flags(flags, schema))
    return checked(to_struct(interpolate(data), schema, source=config_file))


def config_from(data: dict | T, schema: type[T]) -> T:
    """A config given as a dict (the Python API) or as a struct, validated as one loaded from a file."""
    if isinstance(data, schema):
        return checked(data)
    return checked(to_struct(interpolate(dict(data)), schema))


def checked(config: T) -> T:
    """Run the config's own checks (the ``validate`` method of every config struct), before any work starts."""
    validate = getattr(config, "validate", None)
    return validate() if validate is not None else config
