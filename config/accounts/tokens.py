"""Making API tokens and finding the one a request's key belongs to."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Field, ForeignObjectRel

from config.accounts.models import ApiToken

if TYPE_CHECKING:
    from django.contrib.auth.models import User

PREFIX_LENGTH = 8


class Issued(NamedTuple):
    token: ApiToken
    key: str  # the only copy: show it to the owner once


def digest_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def issue_token(user: User, *, name: str = "", expires_at: datetime | None = None) -> Issued:
    """A new token for `user`: 40 hex characters (160 random bits), as DRF's were."""
    key = secrets.token_hex(20)
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=key[:PREFIX_LENGTH],
        digest=digest_of(key),
        expires_at=expires_at,
    )
    return Issued(token, key)


def owned_tokens(user: User) -> list[ApiToken]:
    """The user's tokens, newest first."""
    return list(ApiToken.objects.filter(user=user).order_by("-created_at", "-id"))


def owned_token(user: User, token_id: int) -> ApiToken:
    """The user's token with this id; ApiToken.DoesNotExist for another user's."""
    return ApiToken.objects.get(user=user, id=token_id)


def revoke_token(*, user: User, token_id: int) -> ApiToken:
    """Delete the user's token with this id and return it (ApiToken.DoesNotExist for an
    unknown id or another user's). Processes that remember it
    (config/accounts/authentication.py) refuse it at the latest INGEST_TOKEN_CACHE_SECONDS
    later."""
    token = owned_token(user, token_id)
    token.delete()
    return token


def find_token(key: str) -> ApiToken | None:
    """The token with this key, its user loaded; None for an unknown key.

    Every request of a user this process has not seen for INGEST_TOKEN_CACHE_SECONDS
    comes here (config/accounts/authentication.py), each upload of a burst of new users
    among them. So it is one plain statement, written once: the ORM built and compiled the same join
    each time (with an ORDER BY for first()), most of the lookup's 0.8 ms of CPU."""
    sql, token_fields, user_fields = _lookup_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [digest_of(key)])
        row = cursor.fetchone()
    if row is None:
        return None
    # Model.from_db is how a queryset makes its instances; PostgreSQL's values (text,
    # integers, booleans, aware datetimes) need none of the ORM's conversions.
    split = len(token_fields)
    token = ApiToken.from_db(connection.alias, token_fields, row[:split])
    token.user = get_user_model().from_db(connection.alias, user_fields, row[split:])
    return token


@cache
def _lookup_sql() -> tuple[str, list[str], list[str]]:
    """The token-and-user join: SQL, then the token's and the user's field names."""
    token_meta, user_meta = ApiToken._meta, get_user_model()._meta
    quote = connection.ops.quote_name

    def column(table: str, field: Field | ForeignObjectRel) -> str:
        # A concrete field has a column: Django sets `concrete = column is not None`.
        assert isinstance(field, Field)
        assert field.column is not None
        return f"{table}.{quote(field.column)}"

    columns = [column("t", f) for f in token_meta.concrete_fields]
    columns += [column("u", f) for f in user_meta.concrete_fields]
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(token_meta.db_table)} AS t "
        f"JOIN {quote(user_meta.db_table)} AS u "
        f"ON {column('u', user_meta.pk)} = {column('t', token_meta.get_field('user'))} "
        f"WHERE {column('t', token_meta.get_field('digest'))} = %s"
    )
    token_fields = [f.attname for f in token_meta.concrete_fields]
    user_fields = [f.attname for f in user_meta.concrete_fields]
    return sql, token_fields, user_fields
