"""Which forwarded headers to believe: those a proxy named in INGEST_TRUSTED_PROXIES sent,
and no others, in every process.

A client that reaches a process directly can write X-Forwarded-For, -Proto and -Host
itself. So:
- The client's address (the sign-in limits, the /metrics address check) is the
  connection's own unless the connection comes from a trusted proxy. Then it is read from
  X-Forwarded-For from the right, past every trusted proxy, to the first address that is
  not one (with INGEST_PROXY_COUNT set: that many entries from the right, as before).
- X-Forwarded-Proto, -Host and -Port from anyone else are removed before Django reads
  them (TrustedProxiesMiddleware), so that INGEST_TRUST_X_FORWARDED_PROTO and
  USE_X_FORWARDED_HOST believe only the proxy; the status socket applies the same rule
  to its handshake (config/http/ws_origin.py).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping

from django.conf import settings
from django.http import HttpRequest, HttpResponse

# Headers that say whom a request is for: an untrusted sender of any of them is a proxy
# we do not know (or a client pretending to be one).
FOR_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")
# Headers that change what Django believes about the request (scheme, host, port).
REWRITING_HEADERS = ("HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PORT")


def trusted(address: str | None) -> bool:
    """Whether `address` is one of the proxies named in INGEST_TRUSTED_PROXIES."""
    networks = settings.INGEST_TRUSTED_PROXIES
    if not networks or not address:
        return False
    try:
        parsed = ipaddress.ip_address(address.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def client_address(meta: Mapping[str, str]) -> str | None:
    """The client's address for a request with these META headers (see the module)."""
    peer = meta.get("REMOTE_ADDR")
    if not trusted(peer):
        return peer
    hops = [hop.strip() for hop in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    if not hops:
        return peer
    count = settings.INGEST_PROXY_COUNT
    if count:
        return hops[-count] if len(hops) >= count else hops[0]
    for hop in reversed(hops):
        if not trusted(hop):
            return hop
    return hops[0]


def forwarded_by_stranger(meta: Mapping[str, str]) -> bool:
    """The request says whom it is for, but not through a trusted proxy: whatever its
    connection's address, it speaks for someone else (a proxy on this machine makes every
    visitor look like loopback)."""
    return not trusted(meta.get("REMOTE_ADDR")) and any(meta.get(name) for name in FOR_HEADERS)


def believed_scope(client: tuple[str, int] | list | None) -> bool:
    """For an ASGI scope's `client`: whether its forwarded headers are believed."""
    return bool(client) and trusted(str(client[0]))  # type: ignore[index]


class TrustedProxiesMiddleware:
    """First in MIDDLEWARE: X-Forwarded-Proto, -Host and -Port from a connection that is
    not a trusted proxy are dropped before SecurityMiddleware or get_host() read them."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        if any(name in meta for name in REWRITING_HEADERS) and not trusted(meta.get("REMOTE_ADDR")):
            for name in REWRITING_HEADERS:
                meta.pop(name, None)
        return self.get_response(request)
