"""The real services the scale-out tests stand on come up on loopback, answer, and listen nowhere else; a test
worker that dies is reported with how it ended, and the services it started do not outlive it."""

from __future__ import annotations

import ipaddress
import os
import re
import subprocess
import sys

import psutil
from executor_helpers import square

from conftest import REPO, service_folder
from dolma_sql import storage
from dolma_sql.runtime import run_units
from dolma_sql.runtime.ray import RayExecutor


def test_the_s3_server_stores_and_lists_objects(s3_server):
    bucket = s3_server.new_bucket()
    storage.write_bytes(f"s3://{bucket}/a/b.jsonl", b'{"id":"1"}\n')
    assert storage.expand_globs([f"s3://{bucket}/**/*.jsonl"], config_path="t") == [f"s3://{bucket}/a/b.jsonl"]
    assert s3_server.endpoint.startswith("http://127.0.0.1:")


def test_units_run_on_the_ray_cluster(ray_cluster):
    with RayExecutor(ray_cluster.address) as executor:
        totals = run_units(square, list(range(20)), executor=executor, label="test", quiet=True)
    assert totals["units"] == 20 and totals["sum_of_squares"] == sum(u * u for u in range(20))
    assert totals["in_worker"] == 0  # Ray workers are not multiprocessing children
    assert os.environ["RAY_AUTH_MODE"] == "disabled"


def listening_addresses(root_pid: int) -> set[str]:
    """The local addresses of every listening TCP socket of a process and its descendants."""
    root = psutil.Process(root_pid)
    addresses = set()
    for process in [root, *root.children(recursive=True)]:
        try:
            connections = process.net_connections(kind="tcp")
        except psutil.Error:
            continue
        addresses |= {connection.laddr.ip for connection in connections if connection.status == psutil.CONN_LISTEN}
    return addresses


def on_loopback(address: str) -> bool:
    """127.0.0.0/8, or the same as an IPv4-mapped IPv6 address (which Ray's gRPC servers report)."""
    ip = ipaddress.ip_address(address)
    return (getattr(ip, "ipv4_mapped", None) or ip).is_loopback


def test_the_s3_server_listens_on_loopback_only_and_sends_no_telemetry(s3_server):
    addresses = listening_addresses(s3_server.process.pid)
    assert addresses and all(map(on_loopback, addresses)), addresses
    assert "-master.telemetry=false" in s3_server.arguments


def test_the_ray_head_listens_on_loopback_only(ray_cluster):
    addresses = listening_addresses(ray_cluster.process.pid)
    assert addresses and all(map(on_loopback, addresses)), addresses


def test_a_test_worker_that_dies_is_reported_with_how_it_ended_and_its_services_are_stopped(tmp_path):
    (tmp_path / "test_dies.py").write_text("import os, signal\n\ndef test_dies(s3_server):\n    os.kill(os.getpid(), signal.SIGKILL)\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-n", "1", "--max-worker-restart=0", "-p", "no:cacheprovider", "test_dies.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(REPO / "tests")},
    )
    worker = re.search(r"the worker process (\d+) was killed by SIGKILL\n", run.stdout)
    assert worker, run.stdout[-3000:]
    assert re.search(r"stopped [1-9]\d* processes of its services", run.stdout), run.stdout[-3000:]
    folder = service_folder("s3_server", int(worker.group(1)))
    assert not folder.exists()
    assert not [process for process in psutil.process_iter(["cmdline"]) if str(folder) in " ".join(process.info["cmdline"] or ())]
