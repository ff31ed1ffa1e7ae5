"""The status socket's origin check: the same rule as Django's CSRF check of a form post.

Channels' AllowedHostsOriginValidator compares only the Origin's host with ALLOWED_HOSTS,
so any page on an allowed host could open a signed-in user's socket: another port of the
same machine (a dev server on :5173) or plain http beside https. Here the whole origin,
scheme://host[:port], must be the socket's own (its Host header, which must be in
ALLOWED_HOSTS, with https when the request came over TLS or through a trusted proxy that
says so in SECURE_PROXY_SSL_HEADER), or the page's on the web process's port (PORT) when
the page opens the socket on WS_PORT of its own host (INGEST_WS_URL unset), or one of
CSRF_TRUSTED_ORIGINS (with its `https://*.example.com` wildcards). Settings are read on
each connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

from config.http import proxies

# An ASGI scope, as the server hands it over.
Scope = Mapping[str, Any]


class SameOriginOnly:
    """ASGI middleware that refuses the websocket handshake of any other origin."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def origin_allowed(scope: Scope) -> bool:
    headers = _headers(scope)
    origin = headers.get("origin")
    if not origin:
        return False  # browsers always send one with a websocket handshake
    if _trusted(origin):
        return True
    if not proxies.believed_scope(scope.get("client")):
        # As TrustedProxiesMiddleware does for the web: only a trusted proxy's say.
        for name in ("x-forwarded-proto", "x-forwarded-host", "x-forwarded-port"):
            headers.pop(name, None)
    host = _host(headers)
    if host is None:
        return False
    scheme = "https" if _secure(scope, headers) else "http"
    if origin == f"{scheme}://{host}":
        return True
    if not settings.INGEST_WS_URL:
        # The page on the web process's port opened a socket on WS_PORT of its host.
        domain, _ = split_domain_port(host)  # an IPv6 address keeps its brackets
        return origin == f"{scheme}://{domain}:{settings.WEB_PORT}"
    return False


def _headers(scope: Scope) -> dict[str, str]:
    # Latin-1, as Django reads HTTP headers; a header sent twice keeps its first value.
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        headers.setdefault(name.decode("latin1").lower(), value.decode("latin1"))
    return headers


def _host(headers: dict[str, str]) -> str | None:
    """The request's host and port as Django's HttpRequest.get_host() reads them, or
    None when it is not in ALLOWED_HOSTS."""
    if settings.USE_X_FORWARDED_HOST and "x-forwarded-host" in headers:
        host = headers["x-forwarded-host"]
    else:
        host = headers.get("host", "")
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    domain, _ = split_domain_port(host)
    return host if domain and validate_host(domain, allowed) else None


def _secure(scope: Scope, headers: dict[str, str]) -> bool:
    """Whether the handshake came over TLS, as HttpRequest.is_secure() decides it."""
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header:
        # ("HTTP_X_FORWARDED_PROTO", "https"): a META name, as Django spells it.
        meta_name, secure_value = proxy_header
        name = meta_name.removeprefix("HTTP_").replace("_", "-").lower()
        value = headers.get(name)
        if value is not None:
            return value.split(",")[0].strip() == secure_value
    return scope.get("scheme") in ("wss", "https")


def _trusted(origin: str) -> bool:
    """CSRF_TRUSTED_ORIGINS, matched as Django's CsrfViewMiddleware matches them."""
    trusted = settings.CSRF_TRUSTED_ORIGINS
    if origin in trusted:
        return True
    parsed = urlsplit(origin)
    for entry in trusted:
        if "*" not in entry:
            continue
        allowed = urlsplit(entry)
        if parsed.scheme == allowed.scheme and is_same_domain(
            parsed.netloc, allowed.netloc.lstrip("*")
        ):
            return True
    return False
