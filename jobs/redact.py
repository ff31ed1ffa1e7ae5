"""Credentials out of error text, before it is stored or shown to anyone.

An exception's message may quote what the failing call was given: a database or Redis
URL with `user:password@`, a request's `Authorization` header, an API key in a query
string or in a client's repr. Every error detail, attempt message and traceback a job
keeps goes through `scrub` (jobs.services), and the admin scrubs again what it shows, for
rows kept before this existed. What stays is enough to find the fault: the host, the
scheme, the name of the header or parameter.
"""

import re
from collections.abc import Iterator
from typing import Any

from django.conf import settings

MASK = "***"

# scheme://user:password@host or scheme://token@host: the user information goes.
_URL_USERINFO = re.compile(r"(?P<keep>\b[a-z][a-z0-9+.-]*://)[^\s/@'\"<>]+@", re.IGNORECASE)
# Authorization: Bearer sk-…, 'authorization': 'Token abc', Proxy-Authorization=Basic …
_AUTHORIZATION = re.compile(
    r"(?P<keep>authorization['\"]?\s*[:=]\s*['\"]?)"
    r"(?:(?:bearer|basic|token|digest)\s+)?[^\s'\",;}\]]+",
    re.IGNORECASE,
)
# api_key=…, "apiKey": "…", password: …, secret=…, access_token=…, X-Api-Key: …
_NAMED = re.compile(
    r"(?P<keep>\b(?:[a-z_-]*api[_-]?key|password|passwd|pwd|secret(?:[_-]?access)?[_-]?key|"
    r"secret|[a-z_]*token|signature)['\"]?\s*[:=]\s*['\"]?)[^\s'\",;&}\]]+",
    re.IGNORECASE,
)
# Keys that announce themselves: OpenAI's sk-…, webhook secrets, AWS access key ids.
_SHAPED = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{8,}|whsec_[A-Za-z0-9+/=]{8,}|AKIA[0-9A-Z]{16})\b")

# Settings that hold a credential: their values never appear, whatever the wording.
SECRET_SETTINGS = ("SECRET_KEY", "OPENAI_API_KEY", "INGEST_METRICS_TOKEN")


def scrub(text: str) -> str:
    """`text` with every credential it quotes replaced by ***."""
    if not text:
        return text
    for value in _configured_secrets():
        text = text.replace(value, MASK)
    text = _URL_USERINFO.sub(rf"\g<keep>{MASK}@", text)
    text = _AUTHORIZATION.sub(rf"\g<keep>{MASK}", text)
    text = _NAMED.sub(rf"\g<keep>{MASK}", text)
    return _SHAPED.sub(MASK, text)


def _configured_secrets() -> Iterator[str]:
    """This deployment's own credentials, longest first (one may contain another)."""
    found = [str(getattr(settings, name, "") or "") for name in SECRET_SETTINGS]
    for database in settings.DATABASES.values():
        found.append(str(database.get("PASSWORD") or ""))
    storages: dict[str, dict[str, Any]] = settings.STORAGES
    for storage in storages.values():
        options = storage.get("OPTIONS") or {}
        found += [str(options.get("access_key") or ""), str(options.get("secret_key") or "")]
    # Short values would mask ordinary words; no real credential is that short.
    yield from sorted({value for value in found if len(value) >= 6}, key=len, reverse=True)
