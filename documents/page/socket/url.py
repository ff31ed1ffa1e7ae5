"""Where the upload page and a document's page open their status socket.

The pages write it in `ws-connect`, and the Content-Security-Policy's connect-src allows
it (config/http/csp.py): both read it here, so the socket the page opens is the one allowed.
"""

from django.conf import settings
from django.http import HttpRequest
from django.http.request import split_domain_port


def status_socket_url(request: HttpRequest) -> str:
    """INGEST_WS_URL if set (absolute, or a path on this host when one ASGI server serves
    everything), else this host on WS_PORT, where the Procfile's `ws` process (daphne)
    listens."""
    if settings.INGEST_WS_URL:
        return settings.INGEST_WS_URL
    scheme = "wss" if request.is_secure() else "ws"
    host, _ = split_domain_port(request.get_host())  # an IPv6 address keeps its brackets
    return f"{scheme}://{host}:{settings.WS_PORT}/ws/status/"
