"""A module for the Ray executor's warm-up test: importing it leaves a file in the working folder (a Ray worker
works in the driver's), named after the importing process."""

import os
from pathlib import Path

Path(f"warmed-by-{os.getpid()}").touch()
