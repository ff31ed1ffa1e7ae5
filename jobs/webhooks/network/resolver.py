"""Host names to addresses, within a deadline, for webhook URLs.

`socket.getaddrinfo` has no timeout: a name whose servers never answer would hold a web
request thread (checking an upload's `webhook_url`) or a deliverer thread for as long as
the system resolver keeps trying. c-ares (pycares) resolves on its own event thread, one
per process; a caller waits at most its timeout and is then told so, and nothing of it is
left holding a thread. c-ares reads /etc/hosts and /etc/resolv.conf as the system resolver
does; INGEST_DNS_SERVERS names other servers (host or host:port, comma-separated).
"""

import ipaddress
import os
import socket
import threading

import pycares
from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Timeout(Exception):
    """No answer within the timeout."""


class Failed(Exception):
    """The resolver answered that the name has no address (or could not be asked); the
    message is c-ares's reason."""


_channels: dict[tuple, pycares.Channel] = {}
_channels_lock = threading.Lock()


def _shared_channel() -> pycares.Channel:
    """This process's channel for the resolver settings now in force (a forked child
    makes its own: the event thread is not inherited)."""
    servers = tuple(settings.INGEST_DNS_SERVERS)
    key = (os.getpid(), servers, settings.INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS)
    with _channels_lock:
        channel = _channels.get(key)
        if channel is None:
            channel = pycares.Channel(
                timeout=settings.INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS,
                tries=1,
                servers=list(servers) or None,
            )
            _channels[key] = channel
        return channel


def resolve(host: str, port: int, *, timeout: float) -> list[Address]:
    """The addresses `host` resolves to, in the resolver's order, duplicates left out;
    Timeout after `timeout` seconds, Failed when it does not resolve."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]  # a literal: nothing to ask
    except ValueError:
        pass
    done = threading.Event()
    outcome: dict[str, object] = {}

    def answered(result: object, error: int | None) -> None:
        outcome["result"], outcome["error"] = result, error
        done.set()

    try:
        _shared_channel().getaddrinfo(
            host, port, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM, callback=answered
        )
    except (pycares.AresError, UnicodeError, ValueError) as exc:
        raise Failed(str(exc)) from None
    if not done.wait(timeout):
        raise Timeout(f"no answer within {timeout:g} s")
    error = outcome["error"]
    if isinstance(error, int) and error:
        if error == pycares.errno.ARES_ETIMEOUT:
            raise Timeout(f"no answer within {timeout:g} s")
        raise Failed(pycares.errno.strerror(error))
    addresses: list[Address] = []
    for node in outcome["result"].nodes:  # type: ignore[attr-defined]
        text = node.addr[0].decode() if isinstance(node.addr[0], bytes) else node.addr[0]
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses
