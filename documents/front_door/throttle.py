"""The per-user upload throttle (documents.front_door.admission asks it, after the backlog
and before the user's jobs in flight): config.common.rate_counter's counter, scope "uploads"."""

from django.conf import settings

from config.common import rate_counter


def count_request(*, user_id: int) -> float | None:
    """Count one upload request (or retry) of the user's against INGEST_UPLOAD_THROTTLE_RATE
    ("120/min"): None while within it, else the seconds until the next window lets one in.
    While Redis is down every request is let through; the database-backed admission still
    guards."""
    return rate_counter.count(
        scope="uploads", user_id=user_id, rate=settings.INGEST_UPLOAD_THROTTLE_RATE
    )
