"""An output streamed to S3 as a multipart upload whose parts a background thread sends while the writer
goes on (reading, filtering, compressing the next bytes), so the upload overlaps the work instead of
following it.

The object appears only when :meth:`StreamedUpload.commit` completes the upload (one ``PutObject`` for an
output smaller than a part), as with the staged upload it replaces; :meth:`StreamedUpload.discard`, or
any failure, aborts the upload, so nothing appears at the key. A process killed while writing leaves an
incomplete multipart upload, which S3 never shows as an object (a bucket lifecycle rule,
``AbortIncompleteMultipartUpload``, removes its parts).
"""

from __future__ import annotations

import contextlib
import io
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from dolma_sql.storage.remote import errors, filesystem

PART_BYTES = 8 << 20
"""The size of every part but the last (S3's minimum is 5 MiB)."""

PARTS_IN_FLIGHT = 2
"""Parts handed to the sender and not yet sent: the memory an upload holds beyond its buffer, and how far
the writer may run ahead of a slow store before it waits."""


def streams_to(url: str) -> bool:
    """Whether outputs to the remote ``url`` are streamed (an S3 store, through s3fs) rather than staged and uploaded."""
    fs, _ = filesystem(url)
    s3fs = sys.modules.get("s3fs")  # imported by now if the filesystem is one of its
    return s3fs is not None and isinstance(fs, s3fs.S3FileSystem)


class StreamedUpload(io.RawIOBase):
    """A writable stream to the S3 object ``url``, uploaded in parts as it is written (see the module)."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self._fs, path = filesystem(url)
        self._bucket, self._key, _ = self._fs.split_path(path)
        self._buffer = bytearray()
        self._sender = ThreadPoolExecutor(1, thread_name_prefix="dolma-sql-upload")
        self._upload_id: str | None = None
        self._parts: list[Future] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._buffer += data
        if len(self._buffer) >= PART_BYTES:
            self._send_part()
        return len(data)

    def commit(self) -> None:
        """Send what is left and complete the upload: the object appears whole."""
        with errors(self.url, "write"):
            try:
                if not self._parts:
                    self._call("put_object", Body=bytes(self._buffer))
                else:
                    if self._buffer:
                        self._send_part()
                    parts = [part.result() for part in self._parts]
                    self._call("complete_multipart_upload", UploadId=self._upload_id, MultipartUpload={"Parts": parts})
            except BaseException:
                self.discard()
                raise
        self._sender.shutdown()
        self._buffer = bytearray()
        self._fs.invalidate_cache(f"{self._bucket}/{self._key}")
        super().close()

    def discard(self) -> None:
        """Abort the upload: nothing appears at the key (its parts sent so far are deleted)."""
        for part in self._parts:
            part.cancel()
        self._sender.shutdown(wait=True)
        if self._upload_id is not None:
            with contextlib.suppress(Exception):
                self._call("abort_multipart_upload", UploadId=self._upload_id)
        self._buffer = bytearray()
        super().close()

    def _send_part(self) -> None:
        """Hand the buffer to the sender as the next part, after waiting for the oldest part in flight if there are too many."""
        in_flight = [part for part in self._parts if not part.done()]
        if len(in_flight) >= PARTS_IN_FLIGHT:
            in_flight[0].exception()  # waits
        for part in self._parts:
            if part.done() and part.exception() is not None:
                with errors(self.url, "write"):
                    part.result()
        number = len(self._parts) + 1
        self._parts.append(self._sender.submit(self._upload_part, number, bytes(self._buffer)))
        self._buffer.clear()

    def _upload_part(self, number: int, body: bytes) -> dict[str, Any]:
        """Send one part (the sender sends them in order: the first one starts the upload)."""
        if number == 1:
            self._upload_id = self._call("create_multipart_upload")["UploadId"]
        elif self._upload_id is None:
            raise OSError(f"the multipart upload of {self.url} did not start")
        response = self._call("upload_part", UploadId=self._upload_id, PartNumber=number, Body=body)
        return {"PartNumber": number, "ETag": response["ETag"]}

    def _call(self, method: str, **arguments) -> dict[str, Any]:
        return self._fs.call_s3(method, Bucket=self._bucket, Key=self._key, **arguments)
