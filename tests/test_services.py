"""The real services the scale-out tests stand on come up on loopback, answer, and listen nowhere else."""

from __future__ import annotations

import ipaddress
import os

import psutil
from executor_helpers import square

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
