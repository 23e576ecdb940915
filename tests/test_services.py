"""The real services the scale-out tests stand on come up on loopback and answer."""

from __future__ import annotations

import os

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
