"""Every writer of an output file goes through the one commit protocol (:mod:`dolma_sql.storage.commit`).

The package's source is read as syntax trees: every call that writes a file (``open`` for writing,
renames and copies, NumPy/Parquet/Matplotlib savers, ``Path.write_*``) is found, and each must be
inside the commit protocol itself or write to the local temp path that ``storage.staged`` handed
out. The writers themselves (calls of the protocol's entry points) are listed, per module, and
every command must have its outputs among them.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROTOCOL = REPO / "dolma_sql" / "storage" / "commit.py"
ENTRY_POINTS = {"output", "staged", "write_bytes", "publish", "copy_to"}
"""The commit protocol's ways in."""

MODULE_WRITES = {"os": {"replace", "rename", "link", "symlink"}, "shutil": {"move", "copy", "copyfile", "copy2", "copytree"}, "np": {"save", "savez"}, "numpy": {"save", "savez"}, "pq": {"write_table"}}
"""Functions that put bytes under a file name, by module."""

METHOD_WRITES = {"write_bytes", "write_text", "write_parquet", "to_parquet", "savefig", "open_memmap", "tofile"}
"""Methods that put bytes under a file name, whatever the object (``write_bytes`` unless the protocol's own)."""


def sources() -> list[Path]:
    return sorted(path for folder in ("dolma_sql", "udfs") for path in (REPO / folder).rglob("*.py"))


def _name(call: ast.Call) -> str:
    function = call.func
    return function.attr if isinstance(function, ast.Attribute) else function.id if isinstance(function, ast.Name) else ""


def _is_protocol_call(call: ast.Call) -> bool:
    """``storage.output(...)``, ``storage.staged(...)``, ``staged(...)`` (imported from storage), …"""
    function = call.func
    if isinstance(function, ast.Attribute):
        return function.attr in ENTRY_POINTS and isinstance(function.value, ast.Name) and function.value.id in {"storage", "commit"}
    return isinstance(function, ast.Name) and function.id in ENTRY_POINTS


def _staged_names(tree: ast.AST) -> set[str]:
    """Names bound to a local temp path by ``with storage.staged(...) as name`` (or an enter_context of it),
    and to files opened on such a path."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call) and _name(node.context_expr) == "staged":
            if isinstance(node.optional_vars, ast.Name):
                names.add(node.optional_vars.id)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _name(node.value) == "enter_context":
            inner = node.value.args[0] if node.value.args else None
            if isinstance(inner, ast.Call) and _name(inner) == "staged":
                names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    for node in ast.walk(tree):  # a file opened on a staged path
        if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call) and _name(node.context_expr) == "open":
            if _writes_to_staged(node.context_expr, names) and isinstance(node.optional_vars, ast.Name):
                names.add(node.optional_vars.id)
    return names


def _writes_to_staged(call: ast.Call, staged: set[str]) -> bool:
    return any(isinstance(argument, ast.Name) and argument.id in staged for argument in call.args)


def _is_file_write(call: ast.Call) -> bool:
    function = call.func
    if not isinstance(function, ast.Attribute):
        return False
    if isinstance(function.value, ast.Name) and function.attr in MODULE_WRITES.get(function.value.id, ()):
        return True
    return function.attr in METHOD_WRITES


def _opens_for_writing(call: ast.Call) -> bool:
    if _name(call) != "open" or not isinstance(call.func, ast.Name):
        return False
    modes = [call.args[1]] if len(call.args) > 1 else [k.value for k in call.keywords if k.arg == "mode"]
    return any(isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+") for mode in modes)


def scan() -> tuple[dict[str, list[int]], list[str]]:
    """The protocol's callers (module -> lines), and every write that bypasses it."""
    writers: dict[str, list[int]] = {}
    bypasses = []
    for path in sources():
        if path == PROTOCOL:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        staged = _staged_names(tree)
        module = str(path.relative_to(REPO))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            if _is_protocol_call(node):
                writers.setdefault(module, []).append(node.lineno)
            elif (_opens_for_writing(node) or _is_file_write(node)) and not _writes_to_staged(node, staged):
                if _name(node) == "savefig" and node.args and isinstance(node.args[0], ast.Name):
                    continue  # a figure saved into a stream: checked as that stream's writer below
                bypasses.append(f"{module}:{node.lineno}: {ast.unparse(node)[:100]}")
    return writers, bypasses


def test_no_file_is_written_around_the_commit_protocol():
    _, bypasses = scan()
    assert bypasses == [], "writes that bypass storage.commit:\n" + "\n".join(bypasses)


def test_every_command_writes_its_outputs_through_the_protocol():
    writers, _ = scan()
    modules = set(writers)
    for package in ("mixer", "tagger", "deduper", "tokenizer", "analyzer"):
        assert any(module.startswith(f"dolma_sql/{package}/") for module in modules), f"{package} writes nothing through storage"
    expected = {
        "dolma_sql/runtime/ledger.py",  # ledger records
        "dolma_sql/mixer/write.py",  # mixed shards
        "dolma_sql/mixer/impact.py",  # --dry-run --report
        "dolma_sql/tagger/unit.py",  # attribute files
        "dolma_sql/deduper/attributes.py",  # duplicate spans
        "dolma_sql/deduper/bloom.py",  # the filter
        "dolma_sql/deduper/report.py",  # --report
        "dolma_sql/tokenizer/memmap.py",  # memmaps and their indexes
        "dolma_sql/analyzer/__init__.py",  # summaries.jsonl.gz
        "dolma_sql/query.py",  # sql --output
    }
    assert expected <= modules, sorted(expected - modules)


def test_the_scan_finds_a_write_that_bypasses_the_protocol(tmp_path, monkeypatch):
    """The scan itself can fail: a module that renames a temp file by hand is reported."""
    module = tmp_path / "dolma_sql" / "rogue.py"
    module.parent.mkdir()
    module.write_text("import os\n\ndef save(path):\n    with open(path + '.tmp', 'wb') as f:\n        f.write(b'x')\n    os.replace(path + '.tmp', path)\n")
    monkeypatch.setattr(__import__(__name__), "REPO", tmp_path)
    monkeypatch.setattr(__import__(__name__), "sources", lambda: [module])
    _, bypasses = scan()
    assert sorted(line.split(":")[1] for line in bypasses) == ["4", "6"]
