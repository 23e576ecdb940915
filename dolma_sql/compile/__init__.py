"""Compilers from dolma filter/span expressions (JSONPath, jq, SQL) to sqlglot expressions."""
