import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set up Django (apps, models) before importing anything that imports models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import path  # noqa: E402

from documents.consumers import StatusConsumer  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Only pages served from ALLOWED_HOSTS may open it; the session cookie says who.
        "websocket": AllowedHostsOriginValidator(
            # Channels' documented routing. django-stubs' path() takes only a view that
            # returns an HttpResponse, and types-channels wants its own pattern type.
            AuthMiddlewareStack(
                URLRouter([path("ws/status/", StatusConsumer.as_asgi())])  # type: ignore[arg-type,list-item]
            )
        ),
    }
)
