"""Where a webhook may point: http(s) only, and, unless INGEST_WEBHOOK_ALLOW_PRIVATE, only
to public addresses. A URL is checked when it is given (the upload's `webhook_url`, an
endpoint) and again at each delivery, on the addresses its host resolves to then; the
deliverer connects to the address that passed (client.py), so a name that resolves
differently a moment later (DNS rebinding) cannot lead it inside.
"""

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from jobs.webhooks.network import resolver

MAX_URL_LENGTH = 2000
# Cloud metadata services that sit on ordinary-looking addresses (the link-local ones,
# 169.254.169.254 and fd00:ec2::254, are refused as link-local or private anyway).
METADATA = {ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("192.0.0.192")}

Address = resolver.Address


class InvalidWebhookURL(ValueError):
    """The URL is not one a webhook may be sent to; the message says why, for a person,
    and `code` is the API's."""

    code = "invalid_webhook_url"


class UnreadableURL(InvalidWebhookURL):
    """Not text a URL can be made of (a NUL, a control character): the field is invalid."""

    code = "invalid"


class WebhookDNSTimeout(InvalidWebhookURL):
    """The host's name did not resolve in time: the URL may be fine, its DNS is not."""

    code = "webhook_dns_timeout"


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
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in url):
        raise UnreadableURL(
            "The URL holds a control character (such as NUL or a line break); "
            "send it as plain text."
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidWebhookURL(f"The URL cannot be read: {exc}.") from None
    if parts.scheme not in ("http", "https"):
        raise InvalidWebhookURL("A webhook URL must start with http:// or https://.")
    if parts.scheme == "http" and settings.INGEST_HTTPS and not settings.INGEST_WEBHOOK_ALLOW_HTTP:
        raise InvalidWebhookURL(
            "This service sends webhooks over https only: use an https:// URL (events "
            "carry your documents' names, and a signature alone does not hide them), or "
            "set INGEST_WEBHOOK_ALLOW_HTTP=1 for a receiver on a network you trust."
        )
    if not parts.hostname:
        raise InvalidWebhookURL("The URL has no host.")
    if parts.username or parts.password:
        raise InvalidWebhookURL("A webhook URL may not carry a user name or password.")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname, port or default, path


def same_url(url: str) -> str:
    """The URL as two spellings of one address compare: scheme and host in lower case,
    no default port, "/" for an empty path. Unreadable URLs compare as written."""
    try:
        scheme, host, port, path = parse(url.strip())
    except InvalidWebhookURL:
        return url
    host = f"[{host}]" if ":" in host else host
    default = 443 if scheme == "https" else 80
    netloc = host if port == default else f"{host}:{port}"
    return f"{scheme}://{netloc.lower()}{path}"


def forbidden(address: Address) -> bool:
    """An address a webhook may not reach unless INGEST_WEBHOOK_ALLOW_PRIVATE."""
    if isinstance(address, ipaddress.IPv6Address):
        # An IPv4 address inside an IPv6 one reaches that IPv4 host: it must pass too.
        # IPv4-mapped (::ffff:a.b.c.d), 6to4 (2002::/16) and Teredo (2001::/32, its server
        # and its client) carry one.
        inside = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
        if any(embedded is not None and forbidden(embedded) for embedded in inside):
            return True
        if address.ipv4_mapped is not None:
            return False  # the mapped address passed
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


def resolve(host: str, port: int, *, timeout: float | None = None) -> list[Address]:
    """The host's addresses, within `timeout` seconds (INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS
    when None); WebhookDNSTimeout past it, InvalidWebhookURL when it does not resolve."""
    limit = settings.INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS if timeout is None else timeout
    try:
        return resolver.resolve(host, port, timeout=limit)
    except resolver.Timeout:
        raise WebhookDNSTimeout(
            f"The host {host!r} did not resolve within {limit:g} s. Check the name, or try "
            "again later."
        ) from None
    except resolver.Failed as exc:
        raise InvalidWebhookURL(f"The host {host!r} cannot be resolved ({exc}).") from None


def check(url: str, *, timeout: float | None = None) -> Target:
    """The URL's target, connected to its first allowed address; InvalidWebhookURL when it
    is malformed, does not resolve (within `timeout`, see `resolve`), or resolves only to
    addresses a webhook may not reach (any forbidden address refuses the whole name, as a
    name that mixes them is a trap). The refusal never says what the name resolved to:
    that would tell a stranger about the network the service sits in."""
    scheme, host, port, path = parse(url)
    addresses = resolve(host, port, timeout=timeout)
    if not settings.INGEST_WEBHOOK_ALLOW_PRIVATE and any(forbidden(a) for a in addresses):
        raise InvalidWebhookURL(
            f"The host {host!r} is not on a public address; webhooks are sent to public "
            "addresses only. To send them to a receiver on this machine or your own "
            "network (e.g. while trying webhooks locally), start the service with "
            "INGEST_WEBHOOK_ALLOW_PRIVATE=1."
        )
    if not addresses:
        raise InvalidWebhookURL(f"The host {host!r} has no address.")
    return Target(scheme=scheme, host=host, port=port, path=path, address=addresses[0])
