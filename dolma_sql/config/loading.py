"""Loading dolma configs: a ``-c`` JSON/YAML file, then dotted CLI flags, validated into typed structs.

Every command describes its options as :mod:`msgspec` Structs (``forbid_unknown_fields``),
so a config is checked completely at load time, before any work starts, and errors carry
the config path of the field (``streams[0].span_replacement[0].min_score``).

Flags use dolma's dotted names (``--dedupe.paragraphs.attribute_name X``,
``--no-bloom_filter.read_only``, ``--documents a b c``); values override the file.
``${oc.env:VAR}`` / ``${oc.env:VAR,default}``, ``${oc.select:key,default}`` and ``${other.key}``
interpolations are resolved as OmegaConf does, and dolma's own resolvers as dolma does:
``${d.processes:n}`` (the CPUs but ``n``, at least 1), ``${d.glob:pattern}`` (the matching files, a
list) and ``${d.cache:url}`` (a local path of the file: a remote one is copied once into
``~/.cache/dolma-sql``).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
import re
import shutil
import textwrap
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from dolma_sql.errors import ConfigError

T = TypeVar("T")

_INTERPOLATION = re.compile(r"\$\{([^${}]+)\}")


def read_config_file(path: str) -> dict:
    """Parse a JSON or YAML config file into a dict (YAML is a superset of the JSON dolma uses)."""
    import yaml  # only where a config file is read: never in a worker

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


_ESCAPED = "\x00dolma-sql-escaped\x00"
"""Stands for an escaped ``\\${`` while the interpolations around it are resolved."""


def interpolate(data: Any, root: dict | None = None, where: str = "") -> Any:
    """Resolve the interpolations throughout ``data``, innermost first (``${oc.env:A,${oc.env:B}}``); ``\\${`` is a
    literal ``${``."""
    root = data if root is None else root
    if isinstance(data, dict):
        return {key: interpolate(value, root, _join(where, key)) for key, value in data.items()}
    if isinstance(data, list):
        return [interpolate(value, root, f"{where}[{index}]") for index, value in enumerate(data)]
    if not isinstance(data, str) or "${" not in data:
        return data
    text = data.replace("\\${", _ESCAPED)
    while True:
        whole = _INTERPOLATION.fullmatch(text)
        if whole:  # a lone reference keeps the referenced value's type
            value = _resolve(whole.group(1), root, where)
            return value.replace(_ESCAPED, "${") if isinstance(value, str) else value
        resolved = _INTERPOLATION.sub(lambda match: str(_resolve(match.group(1), root, where)), text)
        if resolved == text:
            return text.replace(_ESCAPED, "${")
        text = resolved


def _resolve(reference: str, root: dict, where: str) -> Any:
    name, colon, argument = reference.partition(":")
    if not colon:
        return _key(reference, root, where)
    if name not in _RESOLVERS:
        raise ConfigError(
            f"unsupported interpolation ${{{reference}}}", path=where or None, hint=f"the resolvers are {', '.join(_RESOLVERS)}, and key references"
        )
    return _RESOLVERS[name](argument.strip(), root, where)


def _key(reference: str, root: dict, where: str) -> Any:
    node: Any = root
    for part in reference.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(f"interpolation ${{{reference}}} refers to a missing key", path=where or None)
        node = node[part]
    return interpolate(node, root, reference)


def _unquoted(text: str) -> str:
    return text.strip().strip("'\"")


def _default(text: str) -> Any:
    """A resolver's default as OmegaConf reads it: ``null``, a number or a boolean has its type; anything else, unquoted, is a string."""
    import yaml

    stripped = text.strip()
    if stripped[:1] in "'\"":
        return _unquoted(stripped)
    try:
        value = yaml.safe_load(stripped)
    except yaml.YAMLError:
        return stripped
    return value if value is None or isinstance(value, (bool, int, float)) else stripped


def _env(argument: str, root: dict, where: str) -> Any:
    name, comma, default = argument.partition(",")
    value = os.environ.get(name.strip())
    if value is None:
        if not comma:
            raise ConfigError(f"environment variable {name.strip()!r} is not set", path=where or None, hint=f"export {name.strip()}=...")
        value = _default(default)
    return value


def _select(argument: str, root: dict, where: str) -> Any:
    key, comma, default = argument.partition(",")
    try:
        return _key(key.strip(), root, where)
    except ConfigError:
        return _default(default) if comma else None


def _processes(argument: str, root: dict, where: str) -> int:
    try:
        spared = int(argument or 0)
    except ValueError:
        raise ConfigError(f"${{d.processes:{argument}}} needs a number of CPUs to leave free", path=where or None) from None
    return max(1, (os.cpu_count() or 1) - spared)


def _glob(argument: str, root: dict, where: str) -> list[str]:
    from dolma_sql.storage import expand_globs

    return expand_globs([_unquoted(argument)], config_path=where)


def _cache(argument: str, root: dict, where: str) -> str:
    from dolma_sql import storage
    from dolma_sql.storage import urls

    url = _unquoted(argument)
    local = urls.local_path(url)
    if local is not None:
        return local
    cached = os.path.join(os.path.expanduser("~/.cache/dolma-sql"), hashlib.sha256(url.encode()).hexdigest()[:16] + "-" + urls.name(url))
    if not os.path.exists(cached):
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        try:
            with urls.open_input(url) as source, storage.output(cached, codec="") as target:
                shutil.copyfileobj(source, target)
        except OSError as error:
            raise ConfigError(f"${{d.cache:{url}}} cannot be read ({error})", path=where or None, hint="check the URL, or give a local path") from None
    return cached


_RESOLVERS = {"oc.env": _env, "oc.select": _select, "d.processes": _processes, "d.glob": _glob, "d.cache": _cache}


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def parse_dotted_flags(args: list[str], schema: type, *, other_options: Sequence[str] = ()) -> dict:
    """Turn ``--a.b value`` / ``--flag`` / ``--no-flag`` / ``--list v1 v2`` into a nested dict (``other_options``: the
    command's own option names, suggested beside the config's for a misspelled one)."""
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
            raise ConfigError(f"unknown option --{name}", hint=_suggest(name, [*_all_dotted(schema), *other_options]))
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


def _all_dotted(schema: type) -> list[str]:
    return [option.name for option in describe_options(schema) if option.flag]


@dataclass(frozen=True)
class OptionHelp:
    """One option of a config, as ``--help`` shows it: its dotted name (``streams[].output.path``
    inside a list of sections), type, default (JSON; None when there is none) and description."""

    name: str
    type: str
    default: str | None
    required: bool
    description: str
    flag: bool
    """Settable as ``--name`` on the command line (keys inside a list of sections are config-file only)."""


def describe_options(schema: type, prefix: str = "", *, flag: bool = True) -> list[OptionHelp]:
    """Every leaf option of ``schema``, nested sections walked, in declaration order: what ``--help``
    lists, from the structs themselves (a field's description is the docstring under it)."""
    options = []
    hints = typing.get_type_hints(schema)
    descriptions = field_descriptions(schema)
    for field in msgspec.structs.fields(schema):
        tp = _unwrap_optional(hints[field.name])
        name = _join(prefix, field.encode_name)
        if _is_struct(tp):
            options.extend(describe_options(tp, name, flag=flag))
        elif _is_list(tp) and _is_struct(typing.get_args(tp)[0]):
            options.extend(describe_options(typing.get_args(tp)[0], f"{name}[]", flag=False))
        else:
            default = field.default_factory() if field.default_factory is not msgspec.NODEFAULT else field.default
            shown = None if default in (msgspec.NODEFAULT, None) else msgspec.json.encode(default).decode()
            options.append(OptionHelp(name, _type_name(tp), shown, field.required, descriptions.get(field.name, ""), flag))
    return options


def _type_name(tp: Any) -> str:
    if typing.get_origin(tp) is typing.Literal:
        return "|".join(map(str, typing.get_args(tp)))
    if _is_list(tp):
        return _type_name(_unwrap_optional(typing.get_args(tp)[0])) + "..."
    return {str: "TEXT", int: "INTEGER", float: "FLOAT", bool: "BOOL"}.get(tp, getattr(tp, "__name__", str(tp)).upper())


@functools.cache
def field_descriptions(schema: type) -> dict[str, str]:
    """``{field name: description}`` from the docstring under each field of ``schema`` and its bases."""
    descriptions: dict[str, str] = {}
    for cls in reversed(schema.__mro__):
        if not issubclass(cls, msgspec.Struct) or cls is msgspec.Struct:
            continue
        try:
            body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
        except (OSError, TypeError):  # no source (a frozen install): no descriptions
            continue
        for node, following in zip(body, body[1:]):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _is_docstring(following):
                descriptions[node.target.id] = " ".join(following.value.value.split())
    return descriptions


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _suggest(name: str, choices: list[str], *, prefix: str = "--", otherwise: str = "see --help for the options") -> str:
    import difflib

    close = difflib.get_close_matches(name, choices, n=3)
    return f"did you mean {', '.join(prefix + c for c in close)}?" if close else otherwise


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
        unknown = re.fullmatch(r"Object contains unknown field `(.+)`", message)
        hint = _suggest_key(unknown.group(1), schema) if unknown else None
        raise ConfigError(message, path=location, hint=hint) from None


def _suggest_key(key: str, schema: type) -> str:
    """The config keys (of any section) closest to a misspelled ``key``."""
    keys = dict.fromkeys(option.name.rsplit(".", 1)[-1] for option in describe_options(schema))
    return _suggest(key, list(keys), prefix="", otherwise="see --help for the keys of each section")


def load_config(
    schema: type[T], *, config_file: str | None, flags: list[str], defaults: dict | None = None, other_options: Sequence[str] = ()
) -> T:
    """File (if any), then flags, then interpolation, then typed validation, then the config's own checks
    (``other_options``: see :func:`parse_dotted_flags`)."""
    data = deep_merge(defaults or {}, read_config_file(config_file) if config_file else {})
    data = deep_merge(data, parse_dotted_flags(flags, schema, other_options=other_options))
    return checked(to_struct(interpolate(data), schema, source=config_file))


def config_from(data: dict | T, schema: type[T]) -> T:
    """A config given as a dict (the Python API) or as a struct, validated as one loaded from a file."""
    if isinstance(data, schema):
        return checked(data)
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a dict of dolma's keys or a {schema.__name__}, not {type(data).__name__}", hint="see the command's --help for its keys")
    return checked(to_struct(interpolate(dict(data)), schema))


def checked(config: T) -> T:
    """Run the config's own checks (the ``validate`` method of every config struct), before any work starts."""
    validate = getattr(config, "validate", None)
    return validate() if validate is not None else config
