"""Typed configs: loading (:mod:`.loading`: files, dotted flags, interpolation) and the shared parts (:mod:`.shared`)."""

from dolma_sql.config.loading import (
    checked,
    config_from,
    deep_merge,
    interpolate,
    load_config,
    parse_dotted_flags,
    read_config_file,
    to_struct,
)
from dolma_sql.config.shared import CompressionConfig, Config, ExecutorConfig, WorkDirConfig

__all__ = [
    "CompressionConfig",
    "Config",
    "ExecutorConfig",
    "WorkDirConfig",
    "checked",
    "config_from",
    "deep_merge",
    "interpolate",
    "load_config",
    "parse_dotted_flags",
    "read_config_file",
    "to_struct",
]
