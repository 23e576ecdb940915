"""The index of built-in taggers (``dolma_sql/tagger/builtins.py``) lets a run import only the modules of its
taggers; it must name exactly what importing every module registers."""

from __future__ import annotations

import json
import subprocess
import sys

from dolma_sql.tagger.builtins import BUILTIN_TAGGERS


def in_fresh_process(code: str):
    """What ``code`` prints as JSON, run in a new interpreter (this one has imported taggers already)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_index_names_what_every_module_registers():
    registered = in_fresh_process(
        "import json; from dolma_sql.tagger.registry import registry\n"
        "print(json.dumps({name: spec.module for name, spec in registry().items()}))"
    )
    indexed = {name: f"dolma_sql.udfs.{module}" for module, names in BUILTIN_TAGGERS.items() for name in names}
    assert registered == indexed, "add the tagger to dolma_sql/tagger/builtins.py under the module that registers it"


def test_a_tagger_loads_its_own_module_only():
    loaded = in_fresh_process(
        "import json, sys; from dolma_sql.tagging import get_tagger\n"
        "get_tagger('cld2_en_paragraph_with_doc_score_v2')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('dolma_sql.udfs.') or m == 'polars')))"
    )
    assert loaded == ["dolma_sql.udfs.language", "dolma_sql.udfs.text"]


def test_a_plugin_cannot_take_a_built_in_name_before_its_module_is_loaded():
    message = in_fresh_process(
        "import json\nfrom dolma_sql.tagging import tagger\n"
        "try:\n    tagger('gopher_v1', types=['x'])(lambda batch: {})\nexcept ValueError as error:\n    print(json.dumps(str(error)))"
    )
    assert message == "tagger 'gopher_v1' is already registered by dolma_sql.udfs.gopher"
