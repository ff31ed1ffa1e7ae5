"""/mcp: the MCP server (documents.mcp.tools) on the web port, behind the API's tokens.

A Django view, so /mcp passes what every request passes (the host check of
DJANGO_ALLOWED_HOSTS, the trusted proxies' headers, the database's 503) and its work runs
on the request's thread (config.http.asgi_bridge says how and why). The SDK's own host
and origin checks (its DNS-rebinding protection) are off: Django has checked the host
before the view runs, and with a token in a header and no cookie a page of another origin
has nothing to borrow. No CSRF check for the same reason.

Streamable HTTP, stateless, answered as JSON: each POST is one whole exchange that any
thread of any web process can answer, for clients of the 2026-07-28 protocol and for those
of the older one (with its `initialize` handshake, and no session kept between requests).
Nothing streams: a GET (the older protocol's stream from the server) is answered 405, as
the transport allows, and `subscriptions/listen` is not served (documents.mcp.tools).

`Authorization: Bearer <API token>` (the same tokens as the API, looked up and remembered
as it does, config.accounts.authentication); without one, or with an unknown, revoked or
expired one, 401 with `WWW-Authenticate: Bearer` before the SDK sees the request.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.transport_security import TransportSecuritySettings
from rest_framework.exceptions import AuthenticationFailed

from config.accounts.authentication import BearerTokenAuthentication
from config.http.asgi_bridge import Bridge, Served
from documents.front_door.intake import public_url
from documents.mcp.tools import BASE_URL, OWNER, server

NO_TOKEN = (
    "Send an API token as 'Authorization: Bearer <key>' (make one on the page's API tokens, "
    "/accounts/tokens/, or with `manage.py create_token <user>`)."
)
REALM = 'Bearer realm="ingest"'


def _build() -> Served:
    server.streamable_http_app(
        json_response=True,
        stateless_http=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager = server.session_manager
    return Served(app=manager.handle_request, running=manager.run)


bridge = Bridge(_build)


@csrf_exempt
def endpoint(request: HttpRequest) -> HttpResponse:
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        return _unauthorized("not_authenticated", NO_TOKEN, REALM)
    try:
        user, _ = BearerTokenAuthentication().authenticate_credentials(key.strip())
    except AuthenticationFailed as exc:
        detail = str(exc.detail)
        return _unauthorized(
            "authentication_failed",
            detail,
            f'{REALM}, error="invalid_token", error_description="{detail}"',
        )
    if request.method != "POST":
        # No stream from the server (a GET would open one): the transport's spec answer.
        answer = JsonResponse(
            {"code": "method_not_allowed", "detail": "POST a JSON-RPC message; nothing streams."},
            status=405,
        )
        answer["Allow"] = "POST"
        return answer
    return bridge.serve(request, {OWNER: user.pk, BASE_URL: public_url(request)})


def _unauthorized(code: str, detail: str, challenge: str) -> HttpResponse:
    answer = JsonResponse({"code": code, "detail": detail}, status=401)
    answer["WWW-Authenticate"] = challenge
    return answer
