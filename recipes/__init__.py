"""Bundled recipes (mixer configs), e.g. the demo recipe."""
