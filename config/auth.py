"""Token authentication that remembers a token for a few seconds per process.

Every API call otherwise costs a database round trip just to learn who is calling; on
the upload path that was a fifth of the statements. A revoked token or a deactivated
user is refused at the latest INGEST_TOKEN_CACHE_SECONDS later (0 turns the cache off).

`signed_in_user` gives the views that refuse anonymous callers their user, typed.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, cast

from django.conf import settings
from rest_framework.authentication import TokenAuthentication

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest
    from rest_framework.request import Request

_lock = threading.Lock()
_known: dict[str, tuple[tuple, float]] = {}
_MAX_ENTRIES = 10_000


class CachedTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple:
        ttl = settings.INGEST_TOKEN_CACHE_SECONDS
        now = time.monotonic()
        with _lock:
            hit = _known.get(key)
        if hit is not None and now - hit[1] < ttl:
            return hit[0]
        result = super().authenticate_credentials(key)  # raises for bad or inactive
        if ttl > 0:
            with _lock:
                if len(_known) > _MAX_ENTRIES:
                    _known.clear()
                _known[key] = (result, now)
        return result


def signed_in_user(request: HttpRequest | Request) -> User:
    """`request.user` in a view that anonymous callers never reach: DRF's default
    IsAuthenticated permission (checked in `initial`, before the handler and the
    throttles), login_required, or the admin site's staff check. Only the type changes."""
    return cast("User", request.user)
