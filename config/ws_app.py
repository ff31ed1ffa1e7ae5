"""The `ws` process's application (the Procfile's `daphne ... config.ws_app:application`):
the status socket and nothing else. Any plain HTTP request gets 404 (426 on a /ws/ path,
which wants a websocket), so the socket's port serves no page, API or /metrics: those are
the web process's, behind its own middleware."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
get_asgi_application()  # sets Django up (apps, models) before the consumers are imported

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from config.http.ws_origin import SameOriginOnly  # noqa: E402
from documents.page.socket.consumer import StatusConsumer  # noqa: E402

# Only this site's own pages may open it (scheme, host and port: see config/http/ws_origin.py);
# the session cookie says who. Channels' documented routing: django-stubs' path() takes
# only a view that returns an HttpResponse, and types-channels wants its own pattern type.
websocket = SameOriginOnly(
    AuthMiddlewareStack(
        URLRouter([path("ws/status/", StatusConsumer.as_asgi())])  # type: ignore[arg-type,list-item]
    )
)


async def not_here(scope: dict, receive: object, send) -> None:  # noqa: ANN001
    """Plain HTTP on the socket's port: 426 for a /ws/ path, 404 for anything else."""
    wants_socket = scope.get("path", "").startswith("/ws/")
    status = 426 if wants_socket else 404
    body = (
        b"This address takes a websocket (Upgrade: websocket).\n"
        if wants_socket
        else b"Not found: this port serves the status socket (/ws/status/) only.\n"
    )
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    if wants_socket:
        headers.append((b"upgrade", b"websocket"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


application = ProtocolTypeRouter({"http": not_here, "websocket": websocket})
