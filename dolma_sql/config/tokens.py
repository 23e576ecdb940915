"""The tokens config: dolma 1.2.1's ``TokenizationConfig``, typed and validated before any work starts.

Every dolma tokens config (JSON or YAML, or dolma's dotted flags) loads unchanged; ``overwrite``
and ``resume`` (for a non-empty destination) and ``executor`` are beyond dolma.
"""

from __future__ import annotations

import msgspec

from dolma_sql.config.shared import Config, ExecutorConfig, WorkDirConfig
from dolma_sql.errors import ConfigError

STRING_TYPES = ("str", "string")
"""``fields.*_type`` values dolma-sql reads: documents' ids and texts are JSON strings."""


class TokenizerConfig(Config):
    name_or_path: str | None = None
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    segment_before_tokenization: bool = False
    refresh: int = 0
    fast: bool = True
    encode_special_tokens: bool = False


class FieldsConfig(Config):
    text_field_name: str = "text"
    text_field_type: str = "str"
    id_field_name: str | None = "id"
    id_field_type: str = "str"


class TokensConfig(Config):
    """dolma's ``TokenizationConfig``; ``overwrite`` or ``resume`` says what to do with a non-empty destination."""

    documents: list[str] = []
    destination: str | None = None
    tokenizer_name_or_path: str | None = None
    tokenizer: TokenizerConfig | None = None
    processes: int = 1
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)
    files_per_process: int | None = None
    batch_size: int = 10_000
    ring_size: int = 8
    fields: FieldsConfig = msgspec.field(default_factory=FieldsConfig)
    sample_ring_prop: bool = False
    max_size: int = 1024 * 1024 * 1024
    dtype: str = "uint16"
    debug: bool = False
    seed: int = 3920
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    dryrun: bool = False
    overwrite: bool = False
    resume: bool = False

    def validate(self) -> TokensConfig:
        """Rules across fields, and dolma's options dolma-sql refuses; raises ConfigError naming the field."""
        options = self.tokenizer
        if options is None and self.tokenizer_name_or_path is not None:
            raise ConfigError(
                "`tokenizer_name_or_path` is deprecated and needs the Hub to find the end-of-sequence id",
                path="tokenizer_name_or_path",
                hint="pass --tokenizer.name_or_path FILE --tokenizer.eos_token_id ID instead",
            )
        if options is None or options.name_or_path is None:
            raise ConfigError("no tokenizer given", path="tokenizer.name_or_path", hint="pass --tokenizer.name_or_path path/to/tokenizer.json")
        if options.bos_token_id is None and options.eos_token_id is None:
            raise ConfigError(
                "neither tokenizer.eos_token_id nor tokenizer.bos_token_id is set, so documents would not be separated",
                path="tokenizer.eos_token_id",
                hint="pass --tokenizer.eos_token_id ID (and/or --tokenizer.bos_token_id ID)",
            )
        if not options.fast:
            raise ConfigError("slow (transformers) tokenizers are not supported", path="tokenizer.fast", hint="drop --no-tokenizer.fast")
        if options.refresh < 0:
            raise ConfigError(f"must be 0 (never) or a number of documents, got {options.refresh}", path="tokenizer.refresh")
        if self.destination is None and not self.dryrun:
            raise ConfigError("no destination given", path="destination", hint="pass --destination DIR")
        for name in ("text_field_type", "id_field_type"):
            if getattr(self.fields, name) not in STRING_TYPES:
                raise ConfigError(f"only string fields are supported, got {getattr(self.fields, name)!r}", path=f"fields.{name}")
        for name in ("processes", "batch_size", "ring_size", "max_size"):
            if getattr(self, name) < 1:
                raise ConfigError(f"must be at least 1, got {getattr(self, name)}", path=name)
        if self.files_per_process is not None and self.files_per_process < 1:
            raise ConfigError(f"must be at least 1, got {self.files_per_process}", path="files_per_process")
        if self.overwrite and self.resume:
            raise ConfigError("overwrite and resume exclude each other", path="overwrite")
        return self
