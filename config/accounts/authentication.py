"""Token authentication against stored hashes, remembered for a few seconds per process.

`Authorization: Token <key>`, or `Bearer <key>` as most HTTP clients send it: the key's
sha256 is looked up (config/accounts/models.py keeps only that), and a token past its
`expires_at` is refused. Every API call would otherwise cost a database round trip just
to learn who is calling; on the upload path that was a fifth of the statements, so a
process remembers a token by its digest (never the key) for INGEST_TOKEN_CACHE_SECONDS.
A deleted token or a deactivated user is refused at the latest that long later (0 turns
the cache off); an expired one at once, since the expiry is checked on every request,
remembered or not.

`signed_in_user` gives the views that refuse anonymous callers their user, typed.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, cast

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from config.accounts import tokens

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest
    from rest_framework.request import Request

    from config.accounts.models import ApiToken

_lock = threading.Lock()
_known: dict[str, tuple[ApiToken, float]] = {}
_MAX_ENTRIES = 10_000


class CachedTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[User, ApiToken]:
        digest = tokens.digest_of(key)
        ttl = settings.INGEST_TOKEN_CACHE_SECONDS
        now = time.monotonic()
        with _lock:
            hit = _known.get(digest)
        if hit is not None and now - hit[1] < ttl:
            token = hit[0]
        else:
            token = _look_up(key)
            if ttl > 0:
                with _lock:
                    if len(_known) > _MAX_ENTRIES:
                        _known.clear()
                    _known[digest] = (token, now)
        if token.has_expired():
            raise exceptions.AuthenticationFailed("Token has expired.")
        return token.user, token


class BearerTokenAuthentication(CachedTokenAuthentication):
    """The same API tokens under `Authorization: Bearer <key>`."""

    keyword = "Bearer"


class BearerScheme(OpenApiAuthenticationExtension):
    """The schema names the Bearer form apart from the Token one (same keys)."""

    target_class = "config.accounts.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token as `Authorization: Bearer <key>`",
        }


def _look_up(key: str) -> ApiToken:
    token = tokens.find_token(key)
    if token is None:
        raise exceptions.AuthenticationFailed("Invalid token.")
    if not token.user.is_active:
        raise exceptions.AuthenticationFailed("User inactive or deleted.")
    return token


def signed_in_user(request: HttpRequest | Request) -> User:
    """`request.user` in a view that anonymous callers never reach: DRF's default
    IsAuthenticated permission (checked in `initial`, before the handler and the
    throttles), login_required, or the admin site's staff check. Only the type changes."""
    return cast("User", request.user)
