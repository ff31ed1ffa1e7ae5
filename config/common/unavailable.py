"""Which errors mean the object storage cannot be reached now (and may be back in seconds),
for the web (503 `storage_unavailable`) and the workers (the read is tried again)."""

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotocoreConnectionError

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
