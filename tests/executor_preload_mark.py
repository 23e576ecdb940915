"""Imported by a started executor's workers (the preload test checks that they did)."""
