"""The whole site over ASGI, for a server that serves both (the API, the pages and the
status socket on one port). The Procfile does not use it: `web` serves HTTP through
gunicorn, and `ws` serves the socket alone (config/ws_app.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set up Django (apps, models) before importing anything that imports models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

from config.ws_app import websocket  # noqa: E402

application = ProtocolTypeRouter({"http": django_asgi_app, "websocket": websocket})
