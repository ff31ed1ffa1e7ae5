"""The Content-Security-Policy header: django-csp's middleware, and the two sources of
connect-src that depend on the request or on the storage.

The policy itself is CONTENT_SECURITY_POLICY in config/settings.py. The pages also talk
to two other origins, which this middleware adds to connect-src on each answer:

- the status socket the upload page and a document's page open (documents.page.socket.url):
  another port of the page's own host by default, or INGEST_WS_URL;
- with INGEST_S3_BUCKET, the bucket that direct uploads are POSTed and PUT to
  (static/js/direct.js), at whatever origin boto3 signs their URLs for.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from typing import Any
from urllib.parse import quote, urlsplit

import boto3
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import BotoCoreError
from csp.decorators import csp_update
from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.core.files.storage import storages
from django.http import HttpRequest, HttpResponseBase

from documents.page.socket.url import status_socket_url

log = logging.getLogger(__name__)

# What the API's docs pages need beyond the policy: Swagger UI's icons are data: URLs
# (so is the image config/http/redoc.py gives ReDoc's badge), and ReDoc searches in a worker
# it starts from a blob: URL.
SWAGGER_UI = csp_update({"img-src": ["data:"]})
REDOC = csp_update({"img-src": ["data:"], "worker-src": ["blob:"]})


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, with the socket's URL and the bucket's origin in
    connect-src."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        # Every page's policy names a nonce, whether or not its template used one
        # (django-csp makes it on first use), so every page answers the same policy.
        nonce = getattr(request, "csp_nonce", None)
        if nonce is not None and response.get("Content-Type", "").startswith("text/html"):
            str(nonce)
        return super().process_response(request, response)

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        sources = connect_sources(request)
        if sources:
            update = dict(parts.update or {})
            update["connect-src"] = [*_as_list(update.get("connect-src")), *sources]
            parts.update = update
        return parts


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def connect_sources(request: HttpRequest) -> list[str]:
    """The status socket's URL and, with a bucket, its origin, as CSP sources."""
    sources = []
    # The page for a host name the site does not answer to opens no socket.
    with contextlib.suppress(DisallowedHost):
        sources.append(socket_source(request))
    if origin := bucket_origin(storages["default"]):
        sources.append(origin)
    return sources


def socket_source(request: HttpRequest) -> str:
    """The status socket's URL as a source: a path (INGEST_WS_URL=/ws/status/) is on the
    page's own host, as htmx's ws extension opens it."""
    url = status_socket_url(request)
    if url.startswith("/"):
        scheme = "wss" if request.is_secure() else "ws"
        url = f"{scheme}://{request.get_host()}{url}"
    return as_source(url)


def as_source(url: str) -> str:
    """`url` as a CSP source expression: scheme://host[:port]/path, without its query.
    A host that a source expression cannot name (an IPv6 address) leaves the scheme only."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        return f"{parts.scheme}:"
    port = f":{parts.port}" if parts.port else ""
    # `;` and `,` end a directive or a policy; whitespace ends a source.
    path = quote(parts.path, safe="/:@!$&'()*+=-._~%")
    return f"{parts.scheme}://{host}{port}{path}"


@functools.lru_cache(maxsize=8)
def bucket_origin(storage: Any) -> str:
    """Where direct uploads go: the scheme, host and port of the URLs boto3 signs for the
    bucket of `storage` ("" for a storage that is no bucket). An unsigned copy of the
    storage's client makes one: the same endpoint, region and addressing style (path or
    virtual-hosted), without credentials and without sending anything. Asked once per
    storage."""
    bucket = getattr(storage, "bucket_name", None)
    if not bucket:
        return ""
    client = storage.connection.meta.client
    try:
        unsigned = boto3.session.Session().client(
            "s3",
            region_name=client.meta.region_name,
            endpoint_url=storage.endpoint_url or None,
            use_ssl=storage.use_ssl,
            config=client.meta.config.merge(Config(signature_version=UNSIGNED)),
        )
        url = unsigned.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "k"})
    except BotoCoreError as exc:
        log.warning("No bucket origin for connect-src (direct uploads will be refused): %s", exc)
        return ""
    parts = urlsplit(url)
    return as_source(f"{parts.scheme}://{parts.netloc}")
