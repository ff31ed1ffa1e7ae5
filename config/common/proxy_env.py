"""The proxies in front of `web` and `ws`, read from the environment once, in one way, for
Django's settings (config/settings.py; config.http.proxies applies them) and for gunicorn's
(config/gunicorn.py), which must believe the same proxies and the same header.

gunicorn never loads Django's settings, so it reads these itself; this module imports
nothing of Django's.
"""

from ipaddress import IPv4Network, IPv6Network

from config.common.env import env_bool, env_networks

# The header Django reads the scheme from, with INGEST_TRUST_X_FORWARDED_PROTO on.
PROTO_HEADER = "X-Forwarded-Proto"


def trusted_proxies() -> list[IPv4Network | IPv6Network]:
    """INGEST_TRUSTED_PROXIES: the proxies whose forwarded headers are believed (none
    by default)."""
    return env_networks("INGEST_TRUSTED_PROXIES")


def trust_forwarded_proto() -> bool:
    """INGEST_TRUST_X_FORWARDED_PROTO: believe a trusted proxy's X-Forwarded-Proto."""
    return env_bool("INGEST_TRUST_X_FORWARDED_PROTO", False)


def gunicorn_forwarded_allow_ips(proxies: list[IPv4Network | IPv6Network]) -> str:
    """gunicorn's forwarded_allow_ips for these proxies: "" believes no one (gunicorn's
    own default believes 127.0.0.1 and ::1, so any local peer)."""
    return ",".join(str(network) for network in proxies)


def gunicorn_secure_scheme_headers(trust_proto: bool) -> dict[str, str]:
    """gunicorn's secure_scheme_headers: X-Forwarded-Proto alone, and only when Django
    believes it too (gunicorn's own default also believes X-Forwarded-Protocol and -Ssl,
    which Django never reads and so never strips from a stranger)."""
    return {PROTO_HEADER.upper(): "https"} if trust_proto else {}
