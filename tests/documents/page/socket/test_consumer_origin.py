"""The status socket's origin check: scheme, host and port, as Django's CSRF check reads a
form's origin. Scopes are what daphne hands the application; one test goes through the
whole ASGI application."""

import ipaddress

import pytest

from config.http.ws_origin import origin_allowed
from tests.documents.page.socket.test_consumer import connect_result, session_headers

pytestmark = pytest.mark.django_db(transaction=True)


PROXY = "10.0.0.5"  # the proxy in front of `ws`, named in INGEST_TRUSTED_PROXIES


def handshake(
    host: str, origin: str | None, *extra: tuple[bytes, bytes], client: str = PROXY
) -> dict:
    headers = [(b"host", host.encode()), *extra]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "websocket", "path": "/ws/status/", "headers": headers, "client": [client, 0]}


@pytest.fixture
def direct(settings):
    """The Procfile's default: the page on PORT, its socket on WS_PORT of the same host."""
    settings.INGEST_WS_URL = ""
    settings.WEB_PORT = 8000
    return settings


@pytest.fixture
def proxied(settings):
    """Behind a proxy that routes /ws/ to the `ws` process: one origin for both."""
    settings.INGEST_WS_URL = "/ws/status/"
    settings.INGEST_TRUSTED_PROXIES = [ipaddress.ip_network(f"{PROXY}/32")]
    return settings


def test_another_port_of_the_same_host_is_refused_through_the_application(alice, direct):
    on_ws_port = (b"host", b"localhost:8001")
    page = session_headers(alice, (b"origin", b"http://localhost:8000"), host=on_ws_port)
    other = session_headers(alice, (b"origin", b"http://localhost:5173"), host=on_ws_port)

    assert connect_result(page)[0]
    assert not connect_result(other)[0]


def test_the_page_on_the_web_port_may_open_the_socket_on_ws_port(direct):
    assert origin_allowed(handshake("localhost:8001", "http://localhost:8000"))
    assert origin_allowed(handshake("localhost:8001", "http://localhost:8001"))
    assert origin_allowed(handshake("[::1]:8001", "http://[::1]:8000"))


def test_other_ports_schemes_and_hosts_are_refused(direct):
    assert not origin_allowed(handshake("localhost:8001", "http://localhost:5173"))
    assert not origin_allowed(handshake("localhost:8001", "http://localhost"))
    assert not origin_allowed(handshake("localhost:8001", "https://localhost:8000"))
    assert not origin_allowed(handshake("localhost:8001", "http://127.0.0.1:8000"))
    assert not origin_allowed(handshake("localhost:8001", "http://evil.example:8000"))
    assert not origin_allowed(handshake("localhost:8001", "null"))
    assert not origin_allowed(handshake("localhost:8001", None))


def test_a_host_outside_allowed_hosts_is_refused_even_from_its_own_origin(direct):
    assert not origin_allowed(handshake("evil.example:8001", "http://evil.example:8001"))
    assert not origin_allowed(handshake("evil.example", "http://evil.example"))
    assert not origin_allowed(handshake("", "http://localhost"))


def test_behind_a_proxy_only_the_same_origin_is_accepted(proxied):
    assert origin_allowed(handshake("localhost", "http://localhost"))
    assert not origin_allowed(handshake("localhost", "http://localhost:8000"))
    assert not origin_allowed(handshake("localhost", "http://localhost:5173"))


def test_https_comes_from_a_trusted_proxy_header_only(proxied):
    proxied.ALLOWED_HOSTS = ["ingest.example"]
    forwarded = (b"x-forwarded-proto", b"https")
    # Not trusted: the request is plain http, so an https page is another origin.
    assert not origin_allowed(handshake("ingest.example", "https://ingest.example", forwarded))
    assert origin_allowed(handshake("ingest.example", "http://ingest.example", forwarded))

    proxied.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

    assert origin_allowed(handshake("ingest.example", "https://ingest.example", forwarded))
    assert not origin_allowed(handshake("ingest.example", "http://ingest.example", forwarded))
    assert not origin_allowed(handshake("ingest.example", "https://ingest.example"))


def test_a_tls_handshake_is_https(proxied):
    scope = handshake("localhost", "https://localhost") | {"scheme": "wss"}

    assert origin_allowed(scope)


def test_csrf_trusted_origins_are_accepted_exactly_or_by_their_wildcard(proxied):
    proxied.CSRF_TRUSTED_ORIGINS = ["https://app.example", "https://*.tools.example"]

    assert origin_allowed(handshake("localhost", "https://app.example"))
    assert origin_allowed(handshake("localhost", "https://ops.tools.example"))
    assert not origin_allowed(handshake("localhost", "http://app.example"))
    assert not origin_allowed(handshake("localhost", "https://app.example:8443"))
    assert not origin_allowed(handshake("localhost", "http://ops.tools.example"))
    assert not origin_allowed(handshake("localhost", "https://tools.example.evil"))


def test_x_forwarded_host_counts_only_when_django_is_told_to_use_it(proxied):
    proxied.ALLOWED_HOSTS = ["ingest.example"]
    forwarded = (b"x-forwarded-host", b"ingest.example")

    assert not origin_allowed(handshake("internal:8001", "http://ingest.example", forwarded))

    proxied.USE_X_FORWARDED_HOST = True

    assert origin_allowed(handshake("internal:8001", "http://ingest.example", forwarded))


def test_forwarded_headers_from_a_stranger_are_not_believed(proxied):
    """A client that reaches `ws` directly cannot say it came over https or for a host."""
    proxied.ALLOWED_HOSTS = ["ingest.example"]
    proxied.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    proxied.USE_X_FORWARDED_HOST = True
    proto = (b"x-forwarded-proto", b"https")
    host = (b"x-forwarded-host", b"ingest.example")

    assert not origin_allowed(
        handshake("ingest.example", "https://ingest.example", proto, client="192.0.2.1")
    )
    assert not origin_allowed(
        handshake("internal:8001", "http://ingest.example", host, client="192.0.2.1")
    )
