import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set up Django (apps, models) before importing anything that imports models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from config.ws_origin import SameOriginOnly  # noqa: E402
from documents.consumers import StatusConsumer  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Only this site's own pages may open it (scheme, host and port: see
        # config/ws_origin.py); the session cookie says who.
        "websocket": SameOriginOnly(
            # Channels' documented routing. django-stubs' path() takes only a view that
            # returns an HttpResponse, and types-channels wants its own pattern type.
            AuthMiddlewareStack(
                URLRouter([path("ws/status/", StatusConsumer.as_asgi())])  # type: ignore[arg-type,list-item]
            )
        ),
    }
)
