"""dolma-sql: AI2's Dolma corpus toolkit, re-implemented on DuckDB + Arrow."""

__version__ = "0.1.0"
