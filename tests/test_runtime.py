"""The runtime: every executor runs every unit once and reports user errors after the others finish;
the local pool owns its process tuning; the ledger makes a rerun skip exactly the finished units of
the same options; workers' progress reaches the caller."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from executor_helpers import CopyUnit, WriteUnit, copy_unit, square, write_unit

from dolma_sql.errors import ConfigError, InputError
from dolma_sql.runtime import Ledger, SerialExecutor, run_units
from dolma_sql.runtime.executors import build_executor
from dolma_sql.runtime.local import LocalExecutor
from dolma_sql.runtime.progress import RunProgress

UNITS = list(range(7))
EXPECTED = {"units": 7, "sum_of_squares": sum(u * u for u in UNITS)}


def totals(executor, units=UNITS) -> dict[str, float]:
    with executor:
        result = run_units(square, units, executor=executor, label="test", quiet=True)
    return {key: result[key] for key in EXPECTED}


@pytest.mark.parametrize(
    "executor",
    [lambda: LocalExecutor(1), lambda: LocalExecutor(2), lambda: LocalExecutor(3), lambda: SerialExecutor(), lambda: SerialExecutor(shuffle=7)],
    ids=["local-1", "local-2", "local-3", "serial", "serial-shuffled"],
)
def test_every_unit_runs_once(executor):
    assert totals(executor()) == EXPECTED


def test_a_shuffled_serial_executor_changes_the_order_only():
    order = [unit for unit, _ in SerialExecutor(shuffle=3).map_unordered(square, UNITS)]
    assert sorted(order) == UNITS and order != UNITS


@pytest.mark.parametrize("executor", [lambda: LocalExecutor(2), lambda: SerialExecutor()], ids=["local", "serial"])
def test_a_failing_unit_is_raised_after_the_others_finish(executor):
    finished = []
    with pytest.raises(InputError, match="unit -1 is negative"):
        run_units(square, [1, -1, 2, 3], executor=executor(), label="test", quiet=True, on_result=lambda unit, _: finished.append(unit))
    assert sorted(finished) == [1, 2, 3]


def test_an_allocator_is_preloaded_into_the_workers_only():
    with LocalExecutor(2, allocator="c") as executor:  # glibc itself: harmless, and always installed
        result = run_units(square, UNITS, executor=executor, label="test", quiet=True)
    assert result["preloaded_allocator"] == len(UNITS) == result["in_worker"], "with an allocator to preload, the caller runs no unit"
    assert "libc.so" not in os.environ.get("LD_PRELOAD", "")


def test_an_allocator_that_is_not_installed_is_a_config_error(monkeypatch):
    monkeypatch.delenv("DOLMA_SQL_ALLOCATOR", raising=False)
    with pytest.raises(ConfigError, match="no allocator library 'no-such-allocator' is installed") as error:
        LocalExecutor(2, allocator="no-such-allocator")
    assert error.value.path == "executor.allocator"
    monkeypatch.setenv("DOLMA_SQL_ALLOCATOR", "no-such-allocator")
    with pytest.raises(ConfigError) as error:
        LocalExecutor(2)
    assert error.value.path == "DOLMA_SQL_ALLOCATOR"


def test_a_started_executor_preloads_its_workers_and_serves_several_maps():
    executor = LocalExecutor(2)
    executor.prepare("executor_preload_mark")
    with executor:
        for _ in range(2):  # the same workers serve every map until the executor is left
            result = run_units(square, UNITS, executor=executor, label="test", quiet=True)
            assert {key: result[key] for key in EXPECTED} == EXPECTED
            assert result["in_worker"] >= 1 and result["preloaded"] == result["in_worker"]  # workers, and only they, imported it
            assert result["polars_threads_set"] >= result["in_worker"]
    assert executor._pool is None


def test_workers_report_progress_to_the_caller():
    with LocalExecutor(2) as executor, RunProgress("test", units=len(UNITS), total_bytes=sum(UNITS), quiet=True) as display:
        results = list(executor.map_unordered(square, UNITS))
    assert len(results) == len(UNITS)
    assert display.streamed_bytes == sum(UNITS)  # every unit's bytes, from workers and from the caller


def test_the_progress_counts_failed_units_apart_from_finished_ones():
    with RunProgress("test", units=3, total_bytes=30, quiet=True) as display:
        display.unit_done(10, {"documents": 4})
        display.unit_done(10, None)
    assert display.units_text == "1/3 units, [red]1 failed[/]"


def test_the_ledger_skips_finished_units_of_the_same_options_only(tmp_path):
    units = [WriteUnit(str(tmp_path / "out" / f"{name}.txt"), name) for name in "abc"]
    ledger = Ledger("test", {"option": 1})
    first = run_units(write_unit, units[:2], executor=SerialExecutor(), label="test", ledger=ledger, quiet=True)
    assert first == {"documents": 2, "written": 2}
    assert ledger.finished(unit.key for unit in units) == {units[0].key, units[1].key}
    again = run_units(write_unit, units, executor=SerialExecutor(), label="test", ledger=ledger, quiet=True)
    assert again == {"units_skipped": 2, "documents": 1, "written": 1}
    other_options = Ledger("test", {"option": 2})
    assert other_options.finished(unit.key for unit in units) == set()
    redone = run_units(write_unit, units, executor=SerialExecutor(), label="test", ledger=ledger, redo=True, quiet=True)
    assert redone["written"] == 3
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".dolma-sql", "a.txt", "b.txt", "c.txt"]
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_unit_redone_with_other_options_loses_its_record_of_the_earlier_ones(tmp_path):
    """Options A, then B, then A again: the output holds B's bytes after the second run, so the third must redo it."""
    unit = WriteUnit(str(tmp_path / "out" / "a.txt"), "a")
    beside = WriteUnit(str(tmp_path / "other" / "a.txt"), "a")  # same name, another folder: its record stays
    first, second = Ledger("test", {"option": "A"}), Ledger("test", {"option": "B"})
    run_units(write_unit, [unit, beside], executor=SerialExecutor(), label="test", ledger=first, quiet=True)
    run_units(write_unit, [unit], executor=SerialExecutor(), label="test", ledger=second, quiet=True)
    assert first.finished([unit.key, beside.key]) == {beside.key}
    assert run_units(write_unit, [unit], executor=SerialExecutor(), label="test", ledger=first, quiet=True)["written"] == 1


def test_a_unit_whose_input_changed_or_whose_output_is_gone_is_done_again(tmp_path):
    """The records name the versions of a unit's inputs, and count only while the output is there."""
    sources = [tmp_path / "in" / f"{name}.txt" for name in "abc"]
    for source in sources:
        source.parent.mkdir(exist_ok=True)
        source.write_text(source.stem)
    units = [CopyUnit(str(tmp_path / "out" / source.name), str(source)) for source in sources]
    ledger = Ledger("test", {"option": 1})
    assert run_units(copy_unit, units, executor=SerialExecutor(), label="test", ledger=ledger, quiet=True)["written"] == 3
    sources[0].write_text("a, edited")  # another size: another version, whatever the clock's resolution
    (tmp_path / "out" / "b.txt").unlink()
    again = run_units(copy_unit, units, executor=SerialExecutor(), label="test", ledger=Ledger("test", {"option": 1}), quiet=True)
    assert again == {"units_skipped": 1, "written": 2}
    assert (tmp_path / "out" / "a.txt").read_text() == "a, edited" and (tmp_path / "out" / "b.txt").read_text() == "b"
    assert len(list((tmp_path / "out" / ".dolma-sql").glob("a.txt.*.done"))) == 1, "the record of the old input is gone"


def test_a_rerun_removes_the_temp_files_of_a_run_killed_while_it_wrote_a_record_or_its_lock(tmp_path):
    unit = WriteUnit(str(tmp_path / "out" / "a.txt"), "a")
    ledger = Ledger("test", {"option": 1})
    left_behind = [
        tmp_path / "out" / ".dolma-sql" / f"{os.path.basename(ledger.record_url(unit.key))}.4242-0123abcd.tmp",
        tmp_path / "out" / ".dolma-sql" / "test.lock.4242-89abcdef.tmp",
    ]
    for temp in left_behind:
        temp.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(b"{")
    run_units(write_unit, [unit], executor=SerialExecutor(), label="test", ledger=ledger, quiet=True)
    assert ledger.finished([unit.key]) == {unit.key}
    assert not list(tmp_path.rglob("*.tmp"))


def test_the_ledger_works_on_an_object_store():
    units = [WriteUnit(f"memory://ledger-test/out/{name}.txt", name) for name in "ab"]
    ledger = Ledger("test", {"option": 1})
    run_units(write_unit, units[:1], executor=SerialExecutor(), label="test", ledger=ledger, quiet=True)
    assert ledger.to_do(units) == units[1:]


def test_executors_are_built_by_kind():
    assert isinstance(build_executor("local", processes=2), LocalExecutor)
    assert isinstance(build_executor("serial"), SerialExecutor)
    with pytest.raises(ConfigError, match="unknown executor 'cluster'"):
        build_executor("cluster")


def test_the_caller_hands_back_the_freed_memory_it_kept_when_its_units_end():
    """The caller keeps freed memory for reuse while it runs units (``keep_freed_memory``) and hands it back
    at the end of the map, so a next stage that allocates through another library does not add to it."""
    code = (
        "from executor_helpers import churn\n"
        "from dolma_sql.runtime.local import LocalExecutor\n"
        "def rss():\n"
        "    return next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmRSS')) >> 10\n"
        "with LocalExecutor(2) as executor:\n"
        "    before = rss()\n"
        "    list(executor.map_unordered(churn, [300, 300]))\n"
        "    print('grown MB:', rss() - before)\n"
    )
    tests = os.path.dirname(__file__)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tests, env={**os.environ, "PYTHONPATH": tests})
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.rsplit("grown MB:", 1)[1]) < 100  # kept, it would be the unit's 300 MB


def test_the_command_line_exits_without_a_final_cycle_collection():
    """``main`` freezes the heap on the way out, so the interpreter's last collections walk nothing."""
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen objects:', gc.get_freeze_count()))\n"  # runs after main returns
        "from dolma_sql.cli import main\n"
        "sys.argv = ['dolma-sql', '--help']\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    frozen = int(result.stdout.rsplit("frozen objects:", 1)[1])
    assert frozen > 1000


def test_a_warning_is_written_as_it_is():
    """Warnings name paths and globs, whose brackets rich would read as markup (and drop, or fail on)."""
    code = ("from dolma_sql.runtime.progress import warn\n"
            "warn('no file matches documents/part-[ab]*.gz')\nwarn('a [/] in a message')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["warning: no file matches documents/part-[ab]*.gz", "warning: a [/] in a message"]
