"""Which failures of a unit a retry may cure: a connection refused or reset, a timeout, an object store
that answered 5xx or asked to slow down, found anywhere in the chain of errors that led to the one
raised (the storage layer reports a lost connection as an error naming the object)."""

from __future__ import annotations

import sys

TRANSIENT_STATUS = {500, 502, 503, 504}
TRANSIENT_CODES = {"SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable", "Throttling", "ThrottlingException"}
"""HTTP statuses and S3 error codes of a store that asks to be retried."""


def is_transient(error: BaseException) -> bool:
    """Whether ``error`` or an error that led to it is one a retry may cure: a connection refused or reset,
    a timeout, a store that answered 5xx or asked to slow down."""
    types = _transient_types()
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, types) or _transient_response(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def _transient_types() -> tuple[type, ...]:
    """Connection and timeout errors, with those of the object-store clients when they are loaded."""
    types: list[type] = [ConnectionError, TimeoutError]
    botocore = sys.modules.get("botocore.exceptions")
    if botocore is not None:
        types += [botocore.ConnectionError, botocore.HTTPClientError]
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None:
        types += [aiohttp.ClientConnectionError, aiohttp.ClientPayloadError]
    return tuple(types)


def _transient_response(error: BaseException) -> bool:
    """An S3 client error whose status or code says to try again."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return False
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return status in TRANSIENT_STATUS or response.get("Error", {}).get("Code") in TRANSIENT_CODES
