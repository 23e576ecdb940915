"""Taggers: one module per family, each tagger a registered function over an Arrow batch."""
