"""System checks of the job settings that only make sense together."""

from collections.abc import Sequence

from django.conf import settings
from django.core.checks import CheckMessage, Warning, register


@register()
def check_idle_transactions_end_before_the_lease(
    app_configs: Sequence[object] | None = None, **kwargs: object
) -> list[CheckMessage]:
    """A warning when a silent client's transaction outlives the lease: a worker machine
    cut off while writing a batch then keeps its job's row locked past the lease, and
    the takeover waits for the link instead of the lease (DATABASE_IDLE_TRANSACTION_SECONDS)."""
    idle, lease = settings.DATABASE_IDLE_TRANSACTION_SECONDS, settings.INGEST_LEASE_SECONDS
    if settings.DATABASE_POOL_MODE != "session" or (idle and idle < lease):
        return []
    said = "is off (0)" if not idle else f"is {idle} s, not below INGEST_LEASE_SECONDS ({lease} s)"
    return [
        Warning(
            f"DATABASE_IDLE_TRANSACTION_SECONDS {said}: a worker machine cut off in the "
            "middle of a write keeps its job's row locked until its link comes back, and "
            "nobody can take the job over meanwhile.",
            hint="Set DATABASE_IDLE_TRANSACTION_SECONDS below INGEST_LEASE_SECONDS "
            "(the default, 30, is half the default lease).",
            id="jobs.W001",
        )
    ]
