"""Faults of the object store, produced by the real S3 server: stopped in the middle of a mix (and started
again), and connections cut while an upload's bytes are on their way (a TCP proxy in front of it)."""

from __future__ import annotations

import socket
import threading
import uuid
from pathlib import Path

import fsspec
import pytest
import s3fs
from s3_helpers import files_under, tree, write_corpus

from dolma_sql import mixer, storage
from dolma_sql.config import config_from
from dolma_sql.config.mix import MixerConfig
from dolma_sql.errors import DolmaSqlError, OutputError
from dolma_sql.runtime import SerialExecutor
from dolma_sql.runtime.executor import Executor, run_catching_user_errors
from dolma_sql.storage.remote import StorageReadError


class PausingAfterFirstUnit(Executor):
    """Units one after the other in this process. The run asks for the second result only once it has
    recorded the first unit in the ledger; then this sets ``recorded`` and waits for ``resume``."""

    def __init__(self) -> None:
        self.recorded, self.resume = threading.Event(), threading.Event()

    def map_unordered(self, fn, units):
        for index, unit in enumerate(units):
            if index == 1:
                self.recorded.set()
                assert self.resume.wait(timeout=600)
            yield unit, run_catching_user_errors(fn, unit)


def mix_config(documents: str, output: str) -> dict:
    return {
        "streams": [
            {
                "name": "s",
                "documents": [documents],
                "attributes": ["a"],
                "output": {"path": output, "max_size_in_bytes": 1},  # a shard per file
                "filter": {"exclude": ["$.attributes[?(@.score[0][2] < 0.2)]"]},
                "span_replacement": [{"span": "$.attributes.pii", "min_score": 0.5, "replacement": "<{}>"}],
            }
        ]
    }


def test_the_server_stopped_mid_mix_is_a_clear_error_and_a_rerun_after_restart_completes(s3_server, tmp_path):
    corpus = write_corpus(tmp_path / "corpus", docs=240, files=3)
    root = f"s3://{s3_server.new_bucket()}/mix"
    s3_server.upload(corpus, root)
    mixer.run(config_from(mix_config(f"{root}/documents/*.gz", f"{root}/clean"), MixerConfig), executor=SerialExecutor(), quiet=True)
    clean = tree(f"{root}/clean")
    assert len(clean) == 3

    config = config_from(mix_config(f"{root}/documents/*.gz", f"{root}/out"), MixerConfig)
    executor = PausingAfterFirstUnit()

    def stop_once_recorded() -> None:
        executor.recorded.wait(timeout=600)
        assert [name for name in files_under(f"{root}/out") if name.endswith(".done")], "the first ledger record is on S3"
        s3_server.stop()
        executor.resume.set()

    stopper = threading.Thread(target=stop_once_recorded)
    stopper.start()
    try:
        with pytest.raises(DolmaSqlError) as failure:
            mixer.run(config, executor=executor, quiet=True)
    finally:
        stopper.join()
        s3_server.start()
    error = failure.value  # the next unit's input, or (releasing the run lock after it) the lock file
    assert isinstance(error, StorageReadError) and error.path.startswith(f"{root}/"), error
    assert "cannot read: Could not connect to the endpoint URL" in str(error) and "rerun" in error.hint

    written = tree(f"{root}/out")
    assert written and all(written[name] == clean[name] for name in written), "no partial object at any final key"
    assert len(written) < len(clean)

    again = mixer.run(config, executor=SerialExecutor(), quiet=True)
    assert again.totals["units_skipped"] == len(written)
    assert tree(f"{root}/out") == clean


class CuttingProxy:
    """A TCP proxy to the S3 server. Once ``budget`` bytes in all have gone towards the server, it cuts
    every connection that carries more than a small request after that (an upload's body): small
    requests (listing, aborting an upload) still pass, so the client can clean up."""

    SMALL = 64 << 10

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.budget: int | None = None
        self.sent = 0
        self.cuts = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:  # the server is down: so is this connection
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, towards_server: bool) -> None:
        after_budget = 0
        try:
            while data := source.recv(1 << 16):
                if towards_server:
                    with self.lock:
                        self.sent += len(data)
                        over = self.budget is not None and self.sent > self.budget
                    after_budget += len(data) if over else 0
                    if after_budget > self.SMALL:
                        with self.lock:
                            self.cuts += 1
                        break
                target.sendall(data)
        except OSError:
            pass
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def arm(self, budget: int) -> None:
        with self.lock:
            self.sent, self.budget, self.cuts = 0, budget, 0

    def close(self) -> None:
        self.listener.close()


@pytest.fixture(scope="module")
def proxied(s3_server):
    """``cut-s3://`` URLs: the S3 server behind a :class:`CuttingProxy`, through the storage layer like any fsspec URL."""
    proxy = CuttingProxy(int(s3_server.endpoint.rsplit(":", 1)[1]))

    class ProxiedS3(s3fs.S3FileSystem):
        protocol = ("cut-s3",)

        def __init__(self, **options) -> None:
            super().__init__(client_kwargs={"endpoint_url": f"http://127.0.0.1:{proxy.port}"}, **options)

    fsspec.register_implementation("cut-s3", ProxiedS3, clobber=True)
    yield proxy
    proxy.close()


@pytest.mark.parametrize("staged", [True, False], ids=["staged", "streamed"])
@pytest.mark.parametrize("size", [8 << 20, 110 << 20], ids=["one-request", "multipart"])
def test_an_upload_cut_after_part_of_its_bytes_leaves_nothing_at_the_final_key(s3_server, proxied, tmp_path, size, staged):
    """Staged in a local folder, the output is uploaded when complete, in parts over 100 MiB; streamed (no
    staging folder), it is sent in parts while it is written. The parts that follow the cut fail, and the
    upload is aborted. A previous version of the object stays whole."""
    bucket = s3_server.new_bucket()
    url = f"cut-s3://{bucket}/out/shard.bin"
    direct = fsspec.filesystem("s3")
    storage.write_bytes(url, b"the previous version\n")
    proxied.arm(budget=min(size // 2, 60 << 20))
    with pytest.raises(OutputError) as failure:
        with storage.output(url, codec="", staging=str(tmp_path / "staging") if staged else None) as writer:
            block = bytes(range(256)) * 4096
            for _ in range(size // len(block)):
                writer.write(block)
    assert proxied.cuts >= 1 and proxied.sent > proxied.budget, "bytes of the upload reached the server before the cut"
    assert failure.value.path == url and "cannot write" in failure.value.message
    direct.invalidate_cache()
    assert direct.cat_file(f"{bucket}/out/shard.bin") == b"the previous version\n"
    assert direct.find(f"{bucket}/out") == [f"{bucket}/out/shard.bin"]
    assert not direct.list_multipart_uploads(bucket), "a multipart upload that failed is aborted"
    assert not staged or not list(Path(tmp_path / "staging").iterdir()), "the staged file is removed"
    proxied.arm(budget=None)
