"""Whether a socket's session still signs its user in: the open status socket asks this
periodically (documents/page/socket/consumer.py), so it stops receiving soon after a logout, a
password change or a deactivation, not only when the page next reloads.

It decides as django.contrib.auth.get_user() does for a request (the session exists and
names a user its backend still returns, an active one, whose session auth hash still
matches, with SECRET_KEY_FALLBACKS), but only reads: get_user() flushes or re-keys the
session it checks, which a socket must not do to the browser's cookie.
"""

from importlib import import_module

from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.utils.crypto import constant_time_compare


def still_signed_in(session_key: str | None, user_id: int) -> bool:
    if not session_key:
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    try:
        session_user = get_user_model()._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except KeyError:  # ended, expired, or never signed in
        return False
    if session_user != user_id or backend_path not in settings.AUTHENTICATION_BACKENDS:
        return False
    user = load_backend(backend_path).get_user(session_user)
    if user is None or not getattr(user, "is_active", True):
        return False
    session_hash = session.get(HASH_SESSION_KEY)
    if not session_hash:
        return False
    if constant_time_compare(session_hash, user.get_session_auth_hash()):
        return True
    return any(
        constant_time_compare(session_hash, fallback)
        for fallback in user.get_session_auth_fallback_hash()
    )
