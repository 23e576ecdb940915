"""Shared fixtures: the conformance data, and the upstream dolma 1.2.1 oracle."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DOLMA_SQL_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance" / "dolma-669f534"


RAY_FIXTURES = {"ray_cluster", "ray_nodes"}


SERVICE_FIXTURES = {"s3_server", *RAY_FIXTURES}


def service_folder(fixture: str, pid: int | None = None) -> Path:
    """Where the service of ``fixture`` started by test process ``pid`` (this one by default) keeps its data, sockets
    and logs: named by the process, so that what a dead test worker left running can be found; short, as Ray's
    socket paths must fit in 107 bytes."""
    return Path("/tmp") / f"{fixture.replace('_', '-')}-{pid or os.getpid()}"


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for pytest-xdist's ``--dist loadgroup`` (``pyproject.toml``): a module runs whole on one worker, so its
    module and session fixtures are built once; the modules that start Ray share one worker, so that there is one
    Ray cluster at a time (two would compete for Ray's fixed default ports, and ``ray.init()`` with no address joins
    the last one started). A test that asks for a Ray fixture only at run time carries the ``ray`` mark instead."""
    on_ray = {item.module.__name__ for item in items if RAY_FIXTURES & set(item.fixturenames) or item.get_closest_marker("ray")}
    for item in items:
        module = item.module.__name__
        item.add_marker(pytest.mark.xdist_group("ray" if module in on_ray else module))


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem: str, report: pytest.TestReport, sched) -> None:
    """A test worker process died (pytest-xdist): its failure report says how the process ended and how the Ray
    logs of its clusters end, so that CI's log explains it; the services it started, which outlive it, are stopped."""
    popen = getattr(getattr(getattr(getattr(report, "node", None), "gateway", None), "_io", None), "popen", None)
    if popen is None:
        return
    try:
        code = popen.wait(timeout=30)
    except subprocess.TimeoutExpired:
        code = None
    ended = "is still running" if code is None else f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with {code}"
    lines = [str(report.longrepr), f"the worker process {popen.pid} {ended}"]
    for fixture in sorted(RAY_FIXTURES):
        logs = service_folder(fixture, popen.pid) / "session_latest" / "logs"
        for log in [*logs.glob(f"python-core-driver-*_{popen.pid}.log"), logs / "raylet.out", logs / "gcs_server.out"]:
            if log.exists():
                entries = [line for line in log.read_text(errors="replace").splitlines() if line.startswith("[")]  # no state dumps
                lines += [f"--- the end of {log}", *entries[-20:]]
    stopped = stop_services_of(popen.pid)
    lines.append(f"stopped {len(stopped)} processes of its services" if stopped else "it left no service running")
    report.longrepr = "\n".join(lines)


def stop_services_of(pid: int) -> list[int]:
    """Kill the services that test process ``pid`` started (their command lines name the services' folders) with
    what they started (their descendants, and the process groups of those started in a session of their own), and
    remove the folders; returns the pids killed."""
    import psutil

    folders = [service_folder(fixture, pid) for fixture in sorted(SERVICE_FIXTURES)]
    names_a_folder = re.compile("|".join(re.escape(str(folder)) + r"(?![0-9])" for folder in folders))
    everything = list(psutil.process_iter(["cmdline"]))
    services = [process for process in everything if names_a_folder.search(" ".join(process.info["cmdline"] or ()))]
    groups = {process.pid for process in services if _group_of(process.pid) == process.pid}
    doomed = {*services, *(process for process in everything if _group_of(process.pid) in groups)}
    for service in services:
        with contextlib.suppress(psutil.Error):
            doomed.update(service.children(recursive=True))
    for process in doomed:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(doomed, timeout=10)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return sorted(process.pid for process in doomed)


def _group_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def find_oracle() -> Path | None:
    """The venv holding upstream ``dolma==1.2.1``: ``$DOLMA_SQL_ORACLE``, else ``<repo>/.oracle``, else ``../.oracle``."""
    candidates = [os.environ.get("DOLMA_SQL_ORACLE"), REPO / ".oracle", REPO.parent / ".oracle"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "bin" / "dolma").exists():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def oracle() -> Path:
    """Path to the upstream ``dolma`` executable. Skips locally without one; in CI a missing oracle fails."""
    venv = find_oracle()
    if venv is None:
        if os.environ.get("CI"):
            pytest.fail("CI must create the oracle venv (.ci/run installs dolma==1.2.1 into .oracle)")
        pytest.skip("no upstream dolma oracle venv (python -m venv .oracle && .oracle/bin/pip install dolma==1.2.1 pycld2)")
    return venv / "bin" / "dolma"


def run_oracle(oracle: Path, args: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run upstream dolma; raises with its stderr when it fails."""
    result = subprocess.run([str(oracle), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"upstream dolma {' '.join(args)} failed:\n{result.stderr[-4000:]}")
    return result


@pytest.fixture()
def conformance(tmp_path: Path) -> Path:
    """A writable copy of upstream's conformance folder; configs run from inside it."""
    if not CONFORMANCE.exists():
        pytest.fail(f"conformance data missing at {CONFORMANCE} (set DOLMA_SQL_SHARED)")
    target = tmp_path / "conformance"
    shutil.copytree(CONFORMANCE, target)
    return target


@pytest.fixture(scope="session")
def s3_server():
    """A SeaweedFS S3 gateway on loopback for the whole session; the AWS variables point every client at it."""
    from services import start_s3_server

    folder = service_folder("s3_server")
    server = start_s3_server(folder)
    saved = {key: os.environ.get(key) for key in server.environment}
    os.environ.update(server.environment)
    yield server
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def ray_cluster(s3_server):
    """A Ray head node with 2 CPUs on loopback; its workers see the S3 server and can import the tests' helpers."""
    from services import RAY_ENVIRONMENT, start_ray_head

    os.environ.update(RAY_ENVIRONMENT)
    folder = service_folder("ray_cluster")
    cluster = start_ray_head(folder, cpus=2, python_path=[str(REPO / "tests")])
    yield cluster
    cluster.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def ray_nodes(s3_server):
    """A simulated Ray cluster of 3 nodes with 1 CPU each (``ray.cluster_utils.Cluster``) on loopback, for tests
    whose units must land on different nodes; its processes see this checkout and the tests' helpers."""
    from services import RAY_ENVIRONMENT

    saved = {key: os.environ.get(key) for key in [*RAY_ENVIRONMENT, "PYTHONPATH"]}
    os.environ.update(RAY_ENVIRONMENT)  # before Ray is imported: it reads some of them once
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "tests"), saved["PYTHONPATH"] or ""])  # inherited by the nodes
    from unittest import mock

    import ray._common.utils
    import ray._private.utils
    from ray.cluster_utils import Cluster

    node = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "object_store_memory": 100 * 2**20}
    folder = service_folder("ray_nodes")
    # the cluster is only for the tests that name its address: it does not become the machine's default
    # cluster (/tmp/ray/ray_current_cluster, which another process's ray.init() would join), nor unset one
    with mock.patch.object(ray._private.utils, "write_ray_address"):
        cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False, "temp_dir": str(folder)})
    try:
        for _ in range(2):
            cluster.add_node(**node)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        with mock.patch.object(ray._common.utils, "reset_ray_address"):
            cluster.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def read_only_folder(tmp_path):
    """A folder nobody can write into, root included: a read-only tmpfs (as root), else a folder without write bits."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o500)
        yield folder
        folder.chmod(0o700)
        return
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)], check=True)
    yield folder
    subprocess.run(["umount", str(folder)], check=True)
