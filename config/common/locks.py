"""Transaction-scoped Postgres advisory locks by name: what two processes must not do at
once for the same key (an owner's claims, an owner's new endpoints) is done holding one."""

from django.db import connection


def hold(name: str) -> None:
    """Wait for the lock named `name` and hold it until the transaction ends. Call inside
    `transaction.atomic()`: outside one, the lock would end with the statement."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [name])
