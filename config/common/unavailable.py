"""Which errors mean the database or the object storage cannot be reached now (and may be
back in seconds), for the web (503 `database_unavailable`, `storage_unavailable`; the MCP
tools' errors say the same) and the workers (the read is tried again)."""

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotocoreConnectionError
from django.db import InterfaceError, OperationalError

# A worker's read of a stored file while the S3 server cannot be reached (a restart) is tried
# again this often, for up to this long, inside the attempt; past that the job retries.
STORAGE_RETRY_SECONDS = 1.0
STORAGE_WAIT_SECONDS = 60.0
# What an S3 server answers while it is overloaded or starting (a 5xx with these codes).
BUSY_CODES = {"SlowDown", "ServiceUnavailable", "InternalError", "503", "500"}


def storage_unavailable(exception: BaseException) -> bool:
    """True for botocore's refused, reset or timed-out connections and an S3 server's
    "busy" answers; False for every other error (a missing key, a refused signature)."""
    if isinstance(exception, BotocoreConnectionError | HTTPClientError):
        return True
    if isinstance(exception, ClientError):
        return exception.response.get("Error", {}).get("Code") in BUSY_CODES
    return False


# A restart or failover of Postgres or of the S3 server takes seconds; clients may try
# again after this many.
RETRY_AFTER_SECONDS = 5
DETAIL = (
    f"The database is not answering (it may be restarting); try again in "
    f"{RETRY_AFTER_SECONDS} seconds. No file of this request was kept unless it was recorded."
)
STORAGE_DETAIL = (
    f"The file storage is not answering (it may be restarting); try again in "
    f"{RETRY_AFTER_SECONDS} seconds. Nothing of this request was recorded."
)


def unavailable(exception: BaseException) -> tuple[str, str] | None:
    """(code, detail) when `exception` says the database or the object storage cannot be
    reached now; None for every other error."""
    if isinstance(exception, OperationalError | InterfaceError):
        return "database_unavailable", DETAIL
    if storage_unavailable(exception):
        return "storage_unavailable", STORAGE_DETAIL
    return None
