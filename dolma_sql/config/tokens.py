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
    """Hugging Face tokenizer.json file (any URL; hub names are not downloaded)."""
    bos_token_id: int | None = None
    """Id put before each document (bos or eos is required)."""
    eos_token_id: int | None = None
    """Id put after each document (bos or eos is required)."""
    pad_token_id: int | None = None
    """Padding id (accepted for dolma; the memmaps have no padding)."""
    segment_before_tokenization: bool = False
    """Split documents into paragraphs before encoding (dolma's workaround for slow Llama tokenizers)."""
    refresh: int = 0
    """Re-create the tokenizer every this many documents (0: never)."""
    fast: bool = True
    """Use the fast Rust tokenizer (false is refused)."""
    encode_special_tokens: bool = False
    """Encode special tokens written in the text as plain text (e.g. <s> as <, s, >)."""


class FieldsConfig(Config):
    text_field_name: str = "text"
    """Field holding the text (dotted for a nested field)."""
    text_field_type: str = "str"
    """Type of the text field (str)."""
    id_field_name: str | None = "id"
    """Field holding the id (null: sha256 of the path and the line number)."""
    id_field_type: str = "str"
    """Type of the id field (str)."""


class TokensConfig(Config):
    """dolma's ``TokenizationConfig``; ``overwrite`` or ``resume`` says what to do with a non-empty destination."""

    documents: list[str] = []
    """Globs of the document files to tokenize (any URL)."""
    destination: str | None = None
    """Folder the memmaps and their csv indexes are written to."""
    tokenizer_name_or_path: str | None = None
    """Deprecated by dolma: use tokenizer.name_or_path (refused)."""
    tokenizer: TokenizerConfig | None = None
    processes: int = 1
    """Number of writer groups (and processes)."""
    executor: ExecutorConfig = msgspec.field(default_factory=ExecutorConfig)
    files_per_process: int | None = None
    """Largest number of input files in one writer group."""
    batch_size: int = 10_000
    """Documents shuffled together before they are written."""
    ring_size: int = 8
    """Input files read round-robin at once by a writer."""
    fields: FieldsConfig = msgspec.field(default_factory=FieldsConfig)
    sample_ring_prop: bool = False
    """Read the ring's files in proportion to their sizes, not round-robin."""
    max_size: int = 1024 * 1024 * 1024
    """Largest number of tokens in one memmap (dolma counts tokens, not bytes)."""
    dtype: str = "uint16"
    """Unsigned integer type of the tokens (any the vocabulary fits in)."""
    debug: bool = False
    """Run in one process."""
    seed: int = 3920
    """Seed of the shuffles (the same seed gives the same bytes)."""
    work_dir: WorkDirConfig = msgspec.field(default_factory=WorkDirConfig)
    dryrun: bool = False
    """Check the config and the inputs, print the plan and exit."""
    overwrite: bool = False
    """Replace the contents of a non-empty destination."""
    resume: bool = False
    """Finish an interrupted run in a non-empty destination (groups done are kept)."""

    def validate(self) -> TokensConfig:
        """Rules across fields, and dolma's options dolma-sql refuses; raises ConfigError naming the field."""
        options = self.tokenizer
        if self.tokenizer_name_or_path is not None:  # also beside tokenizer.*: else it would be ignored silently
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
