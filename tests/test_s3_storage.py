"""The storage layer on a real S3 server: credentials and endpoints the standard AWS way, clear errors for a
missing bucket or object, a refused or unreachable store, inputs staged in ``work_dir.input``, fresh
answers about files other processes wrote, and no bucket ever created by a write."""

from __future__ import annotations

import gzip
import os
import time
import uuid
from pathlib import Path

import fsspec
import pytest
import s3fs
import yaml
from s3_helpers import cli, ok

from dolma_sql import storage
from dolma_sql.errors import ConfigError, InputError
from dolma_sql.formats.lines import iter_line_batches
from dolma_sql.storage import multipart, remote, urls

LINES = b"".join(b'{"id":"%d","text":"line %d"}\n' % (n, n) for n in range(2000))


@pytest.fixture()
def prefix(s3_server) -> str:
    """A fresh prefix holding ``documents/part-0.jsonl.gz`` and its attribute set ``a``."""
    root = f"s3://{s3_server.new_bucket()}/p-{uuid.uuid4().hex[:6]}"
    storage.write_bytes(f"{root}/documents/part-0.jsonl.gz", gzip.compress(LINES))
    attributes = b"".join(b'{"id":"%d","attributes":{"x":[[0,1,0.5]]}}\n' % n for n in range(2000))
    storage.write_bytes(f"{root}/attributes/a/part-0.jsonl.gz", gzip.compress(attributes))
    return root


def without_aws_variables(home: Path, **extra: str) -> dict:
    """No AWS variable at all: credentials, endpoint and region come from ``home``'s ``~/.aws`` files."""
    names = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL", "AWS_DEFAULT_REGION", "AWS_PROFILE")
    return {**{name: None for name in names}, "HOME": str(home), **extra}


def test_credentials_and_endpoint_come_from_the_aws_files(s3_server, prefix, tmp_path):
    aws = tmp_path / "home" / ".aws"
    aws.mkdir(parents=True)
    key, secret = s3_server.environment["AWS_ACCESS_KEY_ID"], s3_server.environment["AWS_SECRET_ACCESS_KEY"]
    aws.joinpath("credentials").write_text(f"[default]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n"
                                           f"[stale]\naws_access_key_id = {key}\naws_secret_access_key = not-the-secret\n")  # fmt: skip
    endpoint = s3_server.environment["AWS_ENDPOINT_URL"]
    aws.joinpath("config").write_text(f"[default]\nendpoint_url = {endpoint}\nregion = us-east-1\n[profile stale]\nendpoint_url = {endpoint}\n")
    query = ["sql", "SELECT count(*) AS n FROM documents", "-d", f"{prefix}/documents/*.gz", "--format", "csv"]
    assert ok(cli(query, tmp_path, env=without_aws_variables(tmp_path / "home"))).stdout.split() == ["n", "2000"]

    refused = cli(query, tmp_path, env=without_aws_variables(tmp_path / "home", AWS_PROFILE="stale"))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert f"{prefix}/documents/*.gz: cannot read: access denied" in refused.stderr and "AWS_PROFILE" in refused.stderr

    aws.joinpath("credentials").write_text("")  # no credentials anywhere (nor the instance metadata service: off the loopback)
    anonymous = cli(query, tmp_path, env=without_aws_variables(tmp_path / "home", AWS_EC2_METADATA_DISABLED="true"))
    assert anonymous.returncode == 1 and "Traceback" not in anonymous.stderr
    message = " ".join(anonymous.stderr.split())
    assert "cannot read: Unable to locate credentials" in message and "AWS_ACCESS_KEY_ID" in message, message


def mix_config(documents: str, output: str) -> dict:
    return {"streams": [{"name": "s", "documents": [documents], "attributes": ["a"], "output": {"path": output},
                         "filter": {"exclude": ["$.attributes[?(@.x[0][2] > 0.9)]"]}}]}  # fmt: skip


def run_mix(config: dict, tmp_path: Path, **env) -> str:
    (tmp_path / "mix.yaml").write_text(yaml.safe_dump(config))
    result = cli(["mix", "mix.yaml"], tmp_path, env=env)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    return " ".join(result.stderr.split())


def test_a_missing_bucket_or_object_is_a_clear_error(s3_server, prefix, tmp_path):
    missing_bucket = f"no-such-bucket-{uuid.uuid4().hex[:8]}"
    message = run_mix(mix_config(f"s3://{missing_bucket}/documents/*.gz", f"{prefix}/out"), tmp_path)
    assert f"no files match ['s3://{missing_bucket}/documents/*.gz'] (no such bucket: {missing_bucket})" in message

    message = run_mix(mix_config(f"{prefix}/documents/*.gz", f"s3://{missing_bucket}/out"), tmp_path)
    assert f"'s3://{missing_bucket}/out' is not writable (no such bucket '{missing_bucket}')" in message
    assert not fsspec.filesystem("s3").exists(missing_bucket), "no bucket is made for an output"

    fsspec.filesystem("s3").rm_file(f"{prefix}/attributes/a/part-0.jsonl.gz".removeprefix("s3://"))
    message = run_mix(mix_config(f"{prefix}/documents/*.gz", f"{prefix}/out"), tmp_path)
    assert f"(expected {prefix}/attributes/a/part-0.jsonl.gz)" in message

    with pytest.raises(InputError, match="cannot open: no such object") as error:
        next(iter_line_batches(f"{prefix}/documents/gone.jsonl.gz"))
    assert error.value.path == f"{prefix}/documents/gone.jsonl.gz"
    with pytest.raises(InputError, match=f"no such bucket '{missing_bucket}'"):
        next(iter_line_batches(f"s3://{missing_bucket}/documents/part-0.jsonl.gz"))


def test_an_unreachable_store_is_a_clear_error(prefix, tmp_path):
    from services import free_port

    closed = f"http://127.0.0.1:{free_port()}"
    message = run_mix(mix_config(f"{prefix}/documents/*.gz", f"{prefix}/out"), tmp_path, AWS_ENDPOINT_URL=closed, AWS_MAX_ATTEMPTS="1")
    assert f"{prefix}/documents/*.gz: cannot read: Could not connect to the endpoint URL: \"{closed}/" in message
    assert "hint: check that the store is reachable" in message


def test_inputs_are_staged_in_work_dir_input_and_removed_once_open(prefix, tmp_path):
    staging = tmp_path / "work" / "input"
    url = f"{prefix}/documents/part-0.jsonl.gz"
    with storage.open_input(url, staging=str(staging)) as handle:
        assert Path(handle.name).parent == staging, "read from a local copy in the staging folder"
        assert not list(staging.iterdir()), "unlinked once open: nothing is left behind, even by a killed reader"
        assert gzip.decompress(handle.read()) == LINES
    batches = list(iter_line_batches(url, staging=str(staging), batch_bytes=4096))
    assert b"".join(line.as_py().encode() for batch in batches for line in batch.lines) == LINES and len(batches) > 5
    assert not list(staging.iterdir())
    with storage.open_input(url) as streamed:
        assert not hasattr(streamed, "name") and gzip.decompress(streamed.read()) == LINES


def test_existence_is_asked_again_not_taken_from_an_old_listing(prefix):
    """A long-lived process (a Ray worker, a notebook) lists a folder; another process then writes into it."""
    assert urls.glob(f"{prefix}/attributes/a/*.gz") == [f"{prefix}/attributes/a/part-0.jsonl.gz"]
    other_process = s3fs.S3FileSystem(skip_instance_cache=True)
    other_process.pipe_file(f"{prefix}/attributes/a/part-1.jsonl.gz".removeprefix("s3://"), b"")
    assert urls.exists(f"{prefix}/attributes/a/part-1.jsonl.gz") and urls.isfile(f"{prefix}/attributes/a/part-1.jsonl.gz")
    assert urls.glob(f"{prefix}/attributes/a/*.gz")[-1] == f"{prefix}/attributes/a/part-1.jsonl.gz"


def test_no_bucket_is_ever_made(s3_server):
    bucket = f"never-made-{uuid.uuid4().hex[:8]}"
    urls.makedirs(f"s3://{bucket}/some/folder")
    assert not fsspec.filesystem("s3").exists(bucket)
    with pytest.raises(ConfigError, match="no such bucket"):
        storage.check_writable(f"s3://{bucket}/out", where="destination")
    assert not fsspec.filesystem("s3").exists(bucket)
    assert os.environ["AWS_ENDPOINT_URL"] == s3_server.endpoint


def test_an_output_is_sent_in_parts_while_it_is_written_and_appears_only_when_committed(prefix):
    """With no staging folder, an S3 output's parts are on the server before the writer finishes (the upload
    overlaps the work), the object appears whole at commit, and an abort deletes the parts sent."""
    direct = s3fs.S3FileSystem(skip_instance_cache=True)
    bucket = prefix.removeprefix("s3://").split("/", 1)[0]
    block = bytes(range(256)) * 4096  # 1 MiB
    for committed in (True, False):
        url = f"{prefix}/out/streamed-{committed}.bin"
        writer = storage.output(url, codec="")
        for _ in range(3 * multipart.PART_BYTES // len(block)):
            writer.write(block)
        uploads = wait_for(lambda: direct.list_multipart_uploads(bucket))
        assert [upload["Key"] for upload in uploads] == [url.removeprefix(f"s3://{bucket}/")]
        parts = wait_for(lambda: direct.call_s3("list_parts", Bucket=bucket, Key=uploads[0]["Key"], UploadId=uploads[0]["UploadId"]).get("Parts"))
        assert parts and all(part["Size"] == multipart.PART_BYTES for part in parts), "whole parts are sent before the commit"
        assert not direct.exists(url), "nothing at the key before the commit"
        if committed:
            writer.write(b"the end")
            writer.commit()
            assert direct.cat_file(url) == block * (3 * multipart.PART_BYTES // len(block)) + b"the end"
        else:
            writer.abort()
            direct.invalidate_cache()
            assert not direct.exists(url)
        assert not direct.list_multipart_uploads(bucket), "the upload is completed or aborted"


def wait_for(found):
    """What ``found()`` returns once it is truthy (the sender thread works on its own time)."""
    deadline = time.monotonic() + 120
    while not (value := found()):
        assert time.monotonic() < deadline, "not seen within 120 s"
        time.sleep(0.05)
    return value


def test_a_file_read_front_to_back_in_chunks_fetched_ahead_gives_its_bytes(prefix, monkeypatch):
    """Sizes around the chunk's edges, read in pieces that do not divide it; ``tell`` counts what was read."""
    chunk = 1 << 16
    monkeypatch.setattr(remote, "READ_AHEAD_BYTES", chunk)
    for size in (0, 1, chunk - 1, chunk, chunk + 1, 5 * chunk // 2):
        data = bytes(range(251)) * (size // 251) + bytes(range(size % 251))
        url = f"{prefix}/read-ahead/{size}.bin"
        storage.write_bytes(url, data)
        with storage.open_input(url, sequential=True) as reader:
            pieces, buffer = [], bytearray(7_000)
            while count := reader.readinto(buffer):
                pieces.append(bytes(buffer[:count]))
                assert reader.tell() == sum(map(len, pieces))
        assert b"".join(pieces) == data, size
    present, missing = f"{prefix}/read-ahead/1.bin", f"{prefix}/read-ahead/missing.bin"
    opened = storage.open_inputs_if_exist([missing, present], sequential=True)
    assert opened[0] is None and opened[1].read() == b"\x00"
    opened[1].close()


def test_a_file_read_front_to_back_is_not_asked_its_size_unless_it_ends_at_a_chunks_edge(prefix, monkeypatch):
    """A request per file saved: only a file whose size is a multiple of the chunk needs it (the store
    refuses a range that starts at its end)."""
    chunk = 1 << 16
    monkeypatch.setattr(remote, "READ_AHEAD_BYTES", chunk)
    asked = []
    filesystem = remote.filesystem(prefix)[0]
    size = filesystem.size
    monkeypatch.setattr(filesystem, "size", lambda path: asked.append(path) or size(path))
    for length in (chunk + 1, 2 * chunk):
        url = f"{prefix}/read-ahead-sizes/{length}.bin"
        storage.write_bytes(url, b"x" * length)
        with storage.open_input(url, sequential=True) as reader:
            assert reader.read() == b"x" * length
    assert asked == [f"{prefix}/read-ahead-sizes/{2 * chunk}.bin".removeprefix("s3://")]
