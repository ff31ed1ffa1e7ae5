"""System checks for sign-in: one secret key for every process, and the proxies whose
forwarded headers say who signs in."""

from collections.abc import Sequence

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register


@register(Tags.security)
def check_secret_key_is_shared(
    app_configs: Sequence[object] | None = None, **kwargs: object
) -> list[CheckMessage]:
    """A warning when neither DJANGO_SECRET_KEY nor the data directory's key file is there:
    each process then signs with a key of its own, so a session made by one web worker
    is refused by the next, and a restart signs everyone out."""
    if not settings.SECRET_KEY_IS_PER_PROCESS:
        return []
    return [
        Warning(
            "No secret key is shared between processes: DJANGO_SECRET_KEY is unset and "
            f"{settings.DATA_DIR / 'secret_key'} does not exist, so each process signs "
            "sessions with a key of its own.",
            hint="Set DJANGO_SECRET_KEY (in production), or run `manage.py embedded start` "
            "(make run's first step), which keeps one in the data directory.",
            id="accounts.W001",
        )
    ]


@register(Tags.security)
def check_proxy_settings_name_the_proxies(
    app_configs: Sequence[object] | None = None, **kwargs: object
) -> list[CheckMessage]:
    """A warning when a setting asks to believe a proxy's headers but no proxy is named:
    config.http.proxies believes forwarded headers only from INGEST_TRUSTED_PROXIES."""
    if settings.INGEST_TRUSTED_PROXIES:
        return []
    asking = [
        name
        for name, value in (
            ("INGEST_PROXY_COUNT", settings.INGEST_PROXY_COUNT),
            ("INGEST_TRUST_X_FORWARDED_PROTO", settings.INGEST_TRUST_X_FORWARDED_PROTO),
            ("USE_X_FORWARDED_HOST", getattr(settings, "USE_X_FORWARDED_HOST", False)),
        )
        if value
    ]
    if not asking:
        return []
    return [
        Warning(
            f"{', '.join(asking)} asks to believe a proxy's forwarded headers, but "
            "INGEST_TRUSTED_PROXIES names no proxy, so they are believed from nobody: every "
            "client address is the connection's own and X-Forwarded-Proto is ignored.",
            hint="Set INGEST_TRUSTED_PROXIES to the proxy's address (a CIDR, e.g. 10.0.0.5/32).",
            id="accounts.W002",
        )
    ]
