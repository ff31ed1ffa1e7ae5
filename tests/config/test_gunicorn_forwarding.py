"""gunicorn believes a forwarded scheme from the proxies Django believes, and no one else.

gunicorn's own defaults believe X-Forwarded-Proto, -Protocol and -Ssl from 127.0.0.1 and
::1 and set `wsgi.url_scheme` from them, before TrustedProxiesMiddleware runs: any local
peer could make a request look secure. Asked of a real gunicorn (the Procfile's `web`,
with config/gunicorn.py) over loopback. The site is served over https (INGEST_HTTPS), so
Django sends HSTS exactly when it takes a request for https (request.is_secure()).
"""

import os
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from config.tooling.embedded import free_port
from tests.harness.servers import WEB, ServerProcess, answers, web_environment

pytestmark = pytest.mark.django_db

HTTPS = {"INGEST_HTTPS": "true", "INGEST_HSTS_SECONDS": "600"}
BEHIND_LOOPBACK_PROXY = {
    **HTTPS,
    "INGEST_TRUSTED_PROXIES": "127.0.0.1/32",
    "INGEST_TRUST_X_FORWARDED_PROTO": "true",
}
SCHEME_HEADERS = [
    {"X-Forwarded-Proto": "https"},
    {"X-Forwarded-Protocol": "ssl"},
    {"X-Forwarded-Ssl": "on"},
]
Web = Callable[[dict[str, str]], str]


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    """Starts gunicorn with these settings on top of the test run's own; its base URL."""
    servers: list[ServerProcess] = []

    def start(environment: dict[str, str]) -> str:
        port = free_port()
        inherited = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("INGEST_TRUST", "INGEST_HTTPS", "INGEST_HSTS"))
            and name != "FORWARDED_ALLOW_IPS"
        }
        env = {**web_environment(port, base=inherited), **environment}
        base_url = f"http://127.0.0.1:{port}"
        logs = tmp_path / str(len(servers))
        logs.mkdir()
        ready = lambda _: answers(f"{base_url}/healthz")  # noqa: E731
        servers.append(ServerProcess("web", [sys.executable, *WEB], env, logs, ready).start())
        return base_url

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


def secure(base_url: str, headers: dict[str, str]) -> bool:
    """Whether Django took this request, sent from 127.0.0.1, for https."""
    request = urllib.request.Request(f"{base_url}/healthz", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
        return answer.headers.get("Strict-Transport-Security") == "max-age=600"


def test_no_local_peer_makes_a_request_secure_by_default(web):
    base_url = web(HTTPS)

    assert [secure(base_url, headers) for headers in SCHEME_HEADERS] == [False, False, False]


def test_a_trusted_proxy_on_loopback_makes_it_secure_with_x_forwarded_proto_alone(web):
    base_url = web(BEHIND_LOOPBACK_PROXY)

    assert secure(base_url, {"X-Forwarded-Proto": "https"})
    assert not secure(base_url, {})
    # The one header Django reads: the others say nothing, even from the proxy.
    assert not secure(base_url, {"X-Forwarded-Protocol": "ssl"})
    assert not secure(base_url, {"X-Forwarded-Ssl": "on"})
