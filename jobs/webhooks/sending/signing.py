"""Standard Webhooks signatures (https://www.standardwebhooks.com/).

Each request carries `webhook-id` (the event's id, the same on every redelivery, so a
receiver can drop duplicates), `webhook-timestamp` (unix seconds of this attempt) and
`webhook-signature: v1,<base64 of HMAC-SHA256 over "id.timestamp.body">`, keyed with the
bytes that the base64 after the secret's `whsec_` prefix encodes. A receiver recomputes
it over the raw body and refuses old timestamps, which stops replays.
"""

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping, Sequence

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE_SECONDS = 300


class InvalidSignature(ValueError):
    """The request is not one this secret signed recently; the message says why."""


def body(payload: Mapping[str, object]) -> bytes:
    """The bytes every delivery of an event sends. Keys are sorted because the payload
    comes back from a jsonb column, which keeps no key order of its own: sorting makes
    the body the same whatever stored or built the dict, on every redelivery."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def key(secret: str) -> bytes:
    """The HMAC key: what the base64 after `whsec_` encodes (the spec's convention)."""
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def signature(secret: str, msg_id: str, timestamp: int, content: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + content
    digest = hmac.new(key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(
    secrets: str | Sequence[str], msg_id: str, content: bytes, *, timestamp: int | None = None
) -> dict:
    """The three Standard Webhooks headers of one attempt (now, unless `timestamp`): one
    signature per secret, space-separated (a rotated secret's old one and its new one)."""
    stamp = int(time.time()) if timestamp is None else timestamp
    keys = [secrets] if isinstance(secrets, str) else list(secrets)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(stamp),
        "webhook-signature": " ".join(signature(k, msg_id, stamp, content) for k in keys),
    }


def verify(
    secret: str,
    request_headers: Mapping[str, str],
    content: bytes,
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> None:
    """What a receiver does: raises InvalidSignature unless one of the space-separated
    `v1,` signatures matches (compared in constant time) and the timestamp is within
    `tolerance` seconds of now. `request_headers`: any mapping (header names in any case)."""
    lower = {name.lower(): value for name, value in request_headers.items()}
    msg_id = lower.get("webhook-id")
    stamp = lower.get("webhook-timestamp")
    signatures = lower.get("webhook-signature")
    if not (msg_id and stamp and signatures):
        raise InvalidSignature("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise InvalidSignature(f"webhook-timestamp {stamp!r} is not a number") from None
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        raise InvalidSignature(f"webhook-timestamp is more than {tolerance} s from now")
    expected = signature(secret, msg_id, timestamp, content)
    for candidate in signatures.split():
        # Other versions (v1a, ...) are skipped, as the spec asks.
        matches = hmac.compare_digest(candidate.encode(), expected.encode())
        if candidate.startswith("v1,") and matches:
            return
    raise InvalidSignature("no signature matches")
