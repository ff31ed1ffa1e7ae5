"""Session authentication whose CSRF check an upload may put off until it is admitted.

Django's CSRF check reads `request.POST` before it looks at the X-CSRFToken header, and
for a multipart upload that is the whole body. DRF authenticates before it throttles, so a
signed-in user past the upload throttle had each 50 MB upload read into temporary files
before the 429. A view that admits uploads sets `request.defer_csrf`: authentication then
notes that the check is owed, and the view settles it with `enforce_deferred_csrf` once the
throttle, the backlog and the in-flight limit have let the request in. The check itself is
DRF's, unchanged; a request that fails it is refused with 403 and nothing is stored.
"""

from rest_framework import authentication
from rest_framework.request import Request


class SessionAuthentication(authentication.SessionAuthentication):
    def enforce_csrf(self, request: Request) -> None:
        if getattr(request, "defer_csrf", False):
            request.csrf_owed = True  # type: ignore[attr-defined]
            return
        super().enforce_csrf(request)


def enforce_deferred_csrf(request: Request) -> None:
    """The CSRF check a session-authenticated upload still owes, if any (may read the body)."""
    if getattr(request, "csrf_owed", False):
        request.csrf_owed = False  # type: ignore[attr-defined]
        authentication.SessionAuthentication().enforce_csrf(request)
