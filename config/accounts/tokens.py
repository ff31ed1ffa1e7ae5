"""Making API tokens and finding the one a request's key belongs to."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

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


def find_token(key: str) -> ApiToken | None:
    """The token with this key, its user loaded; None for an unknown key."""
    return ApiToken.objects.select_related("user").filter(digest=digest_of(key)).first()
