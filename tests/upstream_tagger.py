"""Run upstream dolma taggers on documents, inside the oracle venv (``.oracle/bin/python``).

    python upstream_tagger.py DOCS.json OUT.json TAGGER[=MODEL_PATH]...

OUT.json maps each tagger to its list of per-document outputs.
Used by the model tests: upstream's fastText and URL taggers download their models and lists, so
the test points the tagger class's ``MODEL_PATH`` (or ``BLOCKLIST_PATHS``, ``os.pathsep``-joined) at
local files (a tokenizer tagger's ``Tokenizer.from_pretrained`` at a local tokenizer.json) and runs
upstream's own code on them.
"""

import json
import os
import sys

from dolma.core.data_types import InputSpecWithMetadata
from dolma.core.registry import TaggerRegistry

import dolma.taggers  # noqa: F401  (registers the built-in taggers)



class LocalTokenizer:
    """Stands in for ``tokenizers.Tokenizer`` in upstream's modules: ``from_pretrained`` loads the local file."""

    def __init__(self, path):
        self.path = path

    def from_pretrained(self, *args, **kwargs):
        from tokenizers import Tokenizer

        return Tokenizer.from_file(self.path)


source, target = sys.argv[1:3]
documents = json.load(open(source))
outputs = {}
for request in sys.argv[3:]:
    name, _, model = request.partition("=")
    tagger_class = TaggerRegistry.get(name)
    if model and any(hasattr(tagger_class, key) for key in ("TOKENIZER_PATH", "TOKENIZER_NAME_OR_PATH", "TOKENIZER_IDENTIFIER")):
        for module in ("dolma.taggers.length", "dolma.taggers.tokenizers", "dolma.taggers.repetitions.repetitions_taggers"):
            sys.modules[module].Tokenizer = LocalTokenizer(model)  # upstream calls Tokenizer.from_pretrained(<hub name>)
    elif model and hasattr(tagger_class, "BLOCKLIST_PATHS"):
        tagger_class.BLOCKLIST_PATHS = model.split(os.pathsep)
    elif model:
        tagger_class.MODEL_PATH = model
    tagger = tagger_class()
    results = outputs[name] = []
    for document in documents:
        row = InputSpecWithMetadata(id=document["id"], text=document["text"], source=document.get("source", ""), metadata=document.get("metadata"))
        try:
            results.append(tagger.tag(row))
        except Exception as error:  # noqa: BLE001 - reported to the test, which decides
            results.append({"__error__": repr(error)})
json.dump(outputs, open(target, "w"))
