"""SQL the engine runs, as .sql files (loaded with importlib.resources)."""
