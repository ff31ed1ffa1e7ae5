"""Transaction-scoped Postgres advisory locks by name: what two processes must not do at
once for the same key (an owner's claims, an owner's new endpoints) is done holding one."""

from django.db import connection


def hold(name: str) -> None:
    """Wait for the lock named `name` and hold it until the transaction ends. Call inside
    `transaction.atomic()`: outside one, the lock would end with the statement."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [name])


def try_hold(name: str) -> bool:
    """Take the lock named `name` if no one holds it, and hold it until the transaction
    ends; False, at once, when another transaction holds it. Call inside
    `transaction.atomic()`. For work that one process doing is enough (a sweeper's step
    that several sweepers run): the others skip it rather than wait."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", [name])
        return bool(cursor.fetchone()[0])
