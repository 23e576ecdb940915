"""Interpolations in configs: OmegaConf's ``oc.env``, ``oc.select`` and key references, and dolma's own resolvers
``d.processes``, ``d.glob`` and ``d.cache``, with a clear error for anything else."""

from __future__ import annotations

import os

import pytest

from dolma_sql.config.loading import interpolate
from dolma_sql.errors import ConfigError


def test_environment_variables_with_and_without_defaults(monkeypatch):
    monkeypatch.setenv("DOLMA_SQL_TEST_ROOT", "/data")
    monkeypatch.delenv("DOLMA_SQL_TEST_UNSET", raising=False)
    config = {"a": "${oc.env:DOLMA_SQL_TEST_ROOT}/docs", "b": "${oc.env:DOLMA_SQL_TEST_UNSET,'fallback'}"}
    assert interpolate(config) == {"a": "/data/docs", "b": "fallback"}
    with pytest.raises(ConfigError, match="environment variable 'DOLMA_SQL_TEST_UNSET' is not set") as error:
        interpolate({"x": {"y": "${oc.env:DOLMA_SQL_TEST_UNSET}"}})
    assert error.value.path == "x.y"


def test_key_references_keep_their_type_and_select_falls_back():
    config = {"n": 4, "paths": ["a", "b"], "m": "${n}", "copy": "${paths}", "text": "n=${n}", "s": "${oc.select:n,1}", "t": "${oc.select:nope,7}"}
    assert interpolate(config) == {**config, "m": 4, "copy": ["a", "b"], "text": "n=4", "s": 4, "t": 7}
    with pytest.raises(ConfigError, match="refers to a missing key"):
        interpolate({"m": "${nope}"})


def test_dolmas_resolvers(tmp_path):
    for name in ("b.jsonl.gz", "a.jsonl.gz"):
        (tmp_path / name).write_bytes(b"")
    config = {"processes": "${d.processes:1}", "documents": f"${{d.glob:{tmp_path}/*.jsonl.gz}}", "model": f"${{d.cache:{tmp_path}/a.jsonl.gz}}"}
    assert interpolate(config) == {
        "processes": max(1, (os.cpu_count() or 1) - 1),
        "documents": [str(tmp_path / "a.jsonl.gz"), str(tmp_path / "b.jsonl.gz")],
        "model": str(tmp_path / "a.jsonl.gz"),
    }
    with pytest.raises(ConfigError, match="no files match"):
        interpolate({"documents": f"${{d.glob:{tmp_path}/*.parquet}}"})


def test_a_remote_file_is_cached_once(tmp_path, monkeypatch):
    import fsspec

    monkeypatch.setenv("HOME", str(tmp_path))
    fsspec.filesystem("memory").pipe_file("/models/m.bin", b"weights")
    first = interpolate({"model": "${d.cache:memory://models/m.bin}"})["model"]
    assert first.startswith(str(tmp_path / ".cache" / "dolma-sql")) and open(first, "rb").read() == b"weights"
    fsspec.filesystem("memory").pipe_file("/models/m.bin", b"changed")
    assert interpolate({"model": "${d.cache:memory://models/m.bin}"})["model"] == first and open(first, "rb").read() == b"weights"


def test_a_remote_file_that_is_not_there_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ConfigError, match=r"\$\{d.cache:memory://models/none.bin\} cannot be read") as error:
        interpolate({"model": "${d.cache:memory://models/none.bin}"})
    assert error.value.path == "model" and not list((tmp_path / ".cache" / "dolma-sql").iterdir())


def test_an_unknown_resolver_is_one_clear_error():
    with pytest.raises(ConfigError, match=r"unsupported interpolation \$\{oc.decode:1\}") as error:
        interpolate({"a": "${oc.decode:1}"})
    assert "d.processes" in error.value.hint


def test_nested_interpolations_resolve_innermost_first_and_typed_defaults(monkeypatch):
    """As OmegaConf: a default may itself be an interpolation, ``\\${`` stays a literal ``${``, and a default keeps its
    YAML type (``null``, numbers, booleans) unless quoted."""
    monkeypatch.setenv("DOLMA_SQL_TEST_ROOT", "/data")
    monkeypatch.delenv("DOLMA_SQL_TEST_UNSET", raising=False)
    config = {
        "nested": "${oc.env:DOLMA_SQL_TEST_UNSET,${oc.env:DOLMA_SQL_TEST_ROOT}}/mixed",
        "escaped": "\\${nested} and ${n}",
        "none": "${oc.env:DOLMA_SQL_TEST_UNSET,null}",
        "number": "${oc.select:missing,1.5}",
        "quoted": "${oc.env:DOLMA_SQL_TEST_UNSET,'7'}",
        "n": 2,
    }
    assert interpolate(config) == {**config, "nested": "/data/mixed", "escaped": "${nested} and 2", "none": None, "number": 1.5, "quoted": "7"}
