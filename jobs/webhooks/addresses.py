"""Where a webhook may point: http(s) only, and, unless INGEST_WEBHOOK_ALLOW_PRIVATE, only
to public addresses. A URL is checked when it is given (the upload's `webhook_url`, an
endpoint) and again at each delivery, on the addresses its host resolves to then; the
deliverer connects to the address that passed (client.py), so a name that resolves
differently a moment later (DNS rebinding) cannot lead it inside.
"""

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

MAX_URL_LENGTH = 2000
# Cloud metadata services that sit on ordinary-looking addresses (the link-local ones,
# 169.254.169.254 and fd00:ec2::254, are refused as link-local or private anyway).
METADATA = {ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("192.0.0.192")}

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class InvalidWebhookURL(ValueError):
    """The URL is not one a webhook may be sent to; the message says why, for a person."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as written in the URL: the Host header and the TLS server name
    port: int
    path: str  # path and query, as sent in the request line
    address: Address  # where to connect: a checked address the host resolved to


def parse(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of a URL a webhook may use; InvalidWebhookURL if not."""
    if len(url) > MAX_URL_LENGTH:
        raise InvalidWebhookURL(f"The URL is longer than {MAX_URL_LENGTH} characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidWebhookURL(f"The URL cannot be read: {exc}.") from None
    if parts.scheme not in ("http", "https"):
        raise InvalidWebhookURL("A webhook URL must start with http:// or https://.")
    if not parts.hostname:
        raise InvalidWebhookURL("The URL has no host.")
    if parts.username or parts.password:
        raise InvalidWebhookURL("A webhook URL may not carry a user name or password.")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname, port or default, path


def forbidden(address: Address) -> bool:
    """An address a webhook may not reach unless INGEST_WEBHOOK_ALLOW_PRIVATE."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
        or address in METADATA
    )


def resolve(host: str, port: int) -> list[Address]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise InvalidWebhookURL(f"The host {host!r} cannot be resolved ({exc}).") from None
    addresses: list[Address] = []
    for info in infos:
        # The sockaddr's first item is the address text (an IPv6 one may carry a %zone).
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def check(url: str) -> Target:
    """The URL's target, connected to its first allowed address; InvalidWebhookURL when it
    is malformed, does not resolve, or resolves only to addresses a webhook may not reach
    (any forbidden address refuses the whole name, as a name that mixes them is a trap)."""
    scheme, host, port, path = parse(url)
    addresses = resolve(host, port)
    if not settings.INGEST_WEBHOOK_ALLOW_PRIVATE:
        refused = [a for a in addresses if forbidden(a)]
        if refused:
            raise InvalidWebhookURL(
                f"The host {host!r} resolves to {refused[0]}, a loopback, private, "
                "link-local, multicast or metadata address, which webhooks may not reach."
            )
    if not addresses:
        raise InvalidWebhookURL(f"The host {host!r} has no address.")
    return Target(scheme=scheme, host=host, port=port, path=path, address=addresses[0])
