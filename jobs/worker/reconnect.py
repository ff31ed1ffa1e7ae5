"""How the workers' actors meet a database that is away: the message is delivered again."""

from config.common.reconnect import UNREACHABLE

# A database restart or failover takes seconds; these redeliveries (about 1, 2, 4, 8,
# then every 15 s, with jitter, as the actors' backoff says) cover a few minutes, after
# which the sweeper takes over. Any other error is a bug: the message goes to the
# dead-letter set.
DATABASE_REDELIVERIES = 20


def database_was_away(retries: int, exception: BaseException) -> bool:
    """Dramatiq's `retry_when` for our actors: redeliver only a message whose work met no
    database (their own retries live in the database, which they could not reach)."""
    return isinstance(exception, UNREACHABLE) and retries < DATABASE_REDELIVERIES
