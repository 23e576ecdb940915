"""The Ray executor on a real Ray head: user errors are returned once and stop the run with their file and
line, transient failures are retried, the driver holds a bounded number of tasks, workers' progress reaches
the driver; Ray stays an optional extra that a local run never imports."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import yaml
from executor_helpers import square
from ray_helpers import FlakyUnit, advancing, attempts, environment, flaky, polars_threads
from test_mix_runtime import recipe, write_corpus

from conftest import REPO
from dolma_sql.errors import DolmaSqlError, InputError, OutputError
from dolma_sql.runtime import run_units
from dolma_sql.runtime.progress import RunProgress
from dolma_sql.runtime.ray import TASK_RETRIES, RayExecutor
from dolma_sql.runtime.transient import is_transient


@pytest.fixture(scope="module")
def executor(ray_cluster) -> Iterator[RayExecutor]:
    with RayExecutor(ray_cluster.address) as executor:
        yield executor


def run_flaky(executor: RayExecutor, units: list[FlakyUnit], finished: list | None = None) -> dict[str, float]:
    on_result = (lambda unit, _: finished.append(unit.key)) if finished is not None else None
    return run_units(flaky, units, executor=executor, label="test", quiet=True, on_result=on_result)


def test_a_user_error_is_returned_once_and_stops_the_run_with_its_file_and_line(executor, tmp_path):
    units = [FlakyUnit("a", str(tmp_path)), FlakyUnit("bad", str(tmp_path), failures=99, error="input"), FlakyUnit("c", str(tmp_path))]
    finished: list[str] = []
    with pytest.raises(InputError) as raised:
        run_flaky(executor, units, finished)
    assert str(raised.value) == "bad:3: malformed JSON"
    assert attempts(str(tmp_path), "bad") == 1, "a user error is never retried"
    assert sorted(finished) == ["a", "c"], "the other units finish"


def test_transient_failures_are_retried(executor, tmp_path):
    units = [FlakyUnit("reset", str(tmp_path), failures=2), FlakyUnit("store-went-away", str(tmp_path), failures=1, error="wrapped")]
    assert run_flaky(executor, units)["units"] == 2
    assert attempts(str(tmp_path), "reset") == 3 and attempts(str(tmp_path), "store-went-away") == 2


def test_a_transient_failure_that_outlives_the_retries_stops_the_run_naming_the_unit(executor, tmp_path):
    units = [FlakyUnit("down", str(tmp_path), failures=99), FlakyUnit("store-down", str(tmp_path), failures=99, error="wrapped")]
    outcomes = {unit.key: outcome for unit, outcome in executor.map_unordered(flaky, units)}
    assert str(outcomes["down"]).startswith("down: ConnectionResetError: the store closed the connection")
    assert type(outcomes["down"]) is DolmaSqlError and "rerun to resume" in str(outcomes["down"])
    assert isinstance(outcomes["store-down"], OutputError) and str(outcomes["store-down"]) == "store-down: cannot upload the object"
    assert attempts(str(tmp_path), "down") == attempts(str(tmp_path), "store-down") == TASK_RETRIES + 1


def test_a_store_that_refuses_a_worker_says_whose_settings_count(executor, tmp_path):
    """The driver's own listing may have worked: the error says that a worker's node has settings of its own."""
    units = [FlakyUnit("denied", str(tmp_path), failures=99, error="denied")]
    [(_, outcome)] = list(executor.map_unordered(flaky, units))
    assert isinstance(outcome, InputError) and "access denied" in outcome.message and outcome.path == units[0].key
    assert "this ran on a Ray worker" in outcome.hint and "the environment `ray start` had" in outcome.hint
    assert attempts(str(tmp_path), units[0].key) == 1, "a refusal is not retried"


def test_a_bug_in_a_unit_is_raised_without_retries(executor, tmp_path):
    with pytest.raises(ValueError, match="a bug in the unit"):
        run_flaky(executor, [FlakyUnit("bug", str(tmp_path), failures=99, error="bug")])
    assert attempts(str(tmp_path), "bug") == 1


BUG_RUNS = """
import sys
from dolma_sql.runtime.ray import RayExecutor
from ray_helpers import FlakyUnit, flaky

address, folder, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
with RayExecutor(address) as executor:
    for run in range(runs):
        try:
            list(executor.map_unordered(flaky, [FlakyUnit(f"bug-{run}", folder, failures=99, error="bug")]))
        except ValueError:
            continue
        sys.exit(f"run {run} did not raise the bug")
"""


def test_a_bug_stops_the_run_and_leaves_the_driver_running(ray_cluster, tmp_path):
    """Ray aborts a driver that cancels a task whose outcome has just arrived (about one run in twenty cancelled
    the failed task): the executor cancels only the tasks that have not finished. A driver process of its own runs
    the failing unit 100 times, so that an abort fails this test, not the process running the tests."""
    driver = subprocess.run(
        [sys.executable, "-c", BUG_RUNS, ray_cluster.address, str(tmp_path), "100"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])},
        capture_output=True, text=True,
    )  # fmt: skip
    assert driver.returncode == 0, driver.stderr[-3000:]
    assert len(list(tmp_path.iterdir())) == 100, "each run's unit ran once"


def test_what_counts_as_transient():
    def raised_from(cause: BaseException, error: BaseException) -> BaseException:
        try:
            try:
                raise cause
            except BaseException:
                raise error from None
        except BaseException as caught:
            return caught

    assert is_transient(TimeoutError()) and is_transient(ConnectionRefusedError())
    assert is_transient(raised_from(ConnectionResetError(), OutputError("upload failed", path="s3://b/k")))
    assert not is_transient(InputError("malformed JSON", path="a.jsonl", line=3))
    assert not is_transient(raised_from(FileNotFoundError(), InputError("no such file", path="a.jsonl")))
    slow_down = Exception("SlowDown")
    slow_down.response = {"Error": {"Code": "SlowDown"}, "ResponseMetadata": {"HTTPStatusCode": 503}}
    denied = Exception("AccessDenied")
    denied.response = {"Error": {"Code": "AccessDenied"}, "ResponseMetadata": {"HTTPStatusCode": 403}}
    assert is_transient(raised_from(slow_down, PermissionError())) and not is_transient(raised_from(denied, PermissionError()))


class CountedUnits(Sequence):
    """Units that count how many the executor has taken."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.taken = 0

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index):
        return list(range(self.count))[index]

    def __iter__(self):
        for unit in range(self.count):
            self.taken += 1
            yield unit


def test_the_driver_holds_at_most_max_in_flight_tasks(executor):
    units = CountedUnits(200)
    bounded = RayExecutor(max_in_flight=8)  # on the module's connection to the cluster
    results = 0
    for results, (unit, counters) in enumerate(bounded.map_unordered(square, units), start=1):
        assert counters["sum_of_squares"] == unit * unit
        assert units.taken - (results - 1) <= 8
    assert results == 200 == units.taken


@pytest.mark.parametrize("relay_after_seconds", [0.0, 60.0], ids=["relayed while units run", "with the outcomes"])
def test_the_workers_progress_reaches_the_driver(executor, relay_after_seconds):
    import ray

    units = [1000, 2000, 3000, 4000, 5000]
    before = set(ray.util.list_named_actors())
    with RayExecutor(relay_after_seconds=relay_after_seconds) as reporting:  # on the module's connection to the cluster
        with RunProgress("test", units=len(units), total_bytes=sum(units), quiet=True) as display:
            assert len(list(reporting.map_unordered(advancing, units))) == len(units)
        relays = set(ray.util.list_named_actors()) - before
    assert display.streamed_bytes == sum(units)
    assert len(relays) == (relay_after_seconds == 0), "the relay starts only when units run long"


def test_workers_import_the_prepared_modules_as_soon_as_the_executor_is_entered(executor, tmp_path, monkeypatch):
    """Before any unit: the job's workers start and import them while the driver plans its run."""
    monkeypatch.chdir(tmp_path)
    with RayExecutor() as warming:  # on the module's connection to the cluster
        warming.prepare("ray_warm_marker")
        deadline = time.monotonic() + 120  # a generous bound for a loaded machine; the wait ends at the event
        while not list(tmp_path.glob("warmed-by-*")) and time.monotonic() < deadline:
            time.sleep(0.1)
    assert list(tmp_path.glob("warmed-by-*")), "no worker imported the prepared module"


def test_workers_take_the_object_store_settings_of_their_node(executor, s3_server):
    """The head was started with the S3 server's AWS_* variables, as a user's nodes are with theirs."""
    names = ["AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]
    assert run_units(environment, names, executor=executor, label="test", quiet=True)["set"] == len(names)


def test_workers_are_tuned_as_local_workers_before_they_import_the_units_modules(executor):
    assert run_units(polars_threads, [1, 2, 3, 4], executor=executor, label="test", quiet=True)["threads"] == 4, "one Polars thread per task"


def cli(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """Python ``code`` in a fresh interpreter on this checkout (with a ``run(*args)`` for the command line)."""
    prelude = (
        "import sys\n"
        "from dolma_sql.cli import main\n"
        "def run(*args):\n"
        "    sys.argv = ['dolma-sql', *args]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exit:\n"
        "        if exit.code:\n"
        "            raise\n"
    )
    return subprocess.run([sys.executable, "-P", "-c", prelude + code], cwd=cwd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.fixture()
def mix_recipe(tmp_path) -> Path:
    write_corpus(tmp_path / "corpus", files=2, documents=20)
    (tmp_path / "recipe.yaml").write_text(yaml.safe_dump(recipe("corpus/documents/*.jsonl.gz", "out", processes=2)))
    return tmp_path


def test_a_local_run_does_not_import_ray(mix_recipe):
    result = cli("run('mix', 'recipe.yaml')\nassert 'ray' not in sys.modules, 'ray was imported'\n", mix_recipe)
    assert result.returncode == 0, result.stderr
    assert len(list((mix_recipe / "out").glob("*.jsonl.gz"))) == 2


def test_a_missing_ray_is_a_clear_error_with_the_install_command(mix_recipe):
    result = cli("sys.modules['ray'] = None  # as if Ray were not installed\nrun('mix', 'recipe.yaml', '--executor', 'ray')\n", mix_recipe)
    assert result.returncode == 1
    assert "executor.kind: the ray executor needs Ray, which is not installed" in result.stderr
    assert 'pip install ".[ray]" in the dolma-sql checkout' in result.stderr and "Traceback" not in result.stderr
    assert not (mix_recipe / "out").exists(), "before any work"


def test_an_address_where_no_cluster_answers_is_one_error_at_once(mix_recipe):
    """Ray itself would retry for minutes, printing only its own warnings."""
    with socket.socket() as probe:  # a loopback port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    result = subprocess.run(
        [sys.executable, "-P", "-m", "dolma_sql", "mix", "recipe.yaml", "--executor", "ray"],
        cwd=mix_recipe, env={**os.environ, "PYTHONPATH": str(REPO), "RAY_ADDRESS": address}, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: RAY_ADDRESS: no Ray cluster answers at {address}"), result.stderr
    assert "ray start --head" in result.stderr and not (mix_recipe / "out").exists()


def test_fewer_units_than_the_cluster_has_cpus_are_said_once(ray_cluster, capsys):
    """tokens makes as many units as --processes says, whatever the cluster: an idle cluster is not left unsaid."""
    with RayExecutor(ray_cluster.address) as executor:
        for _ in range(2):
            assert run_units(square, [3], executor=executor, label="test", quiet=True)["sum_of_squares"] == 9
    assert capsys.readouterr().err.count("1 unit of work for a cluster of 2 CPUs: 1 of them stay idle") == 1
