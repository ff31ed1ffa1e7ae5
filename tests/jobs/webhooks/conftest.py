import socket
from collections.abc import Iterator

import pytest

DNS_TIMEOUT = 1.0  # seconds, for the tests that meet a DNS server that never answers


@pytest.fixture
def silent_dns(settings) -> Iterator[socket.socket]:
    """A DNS server of the test's own that takes queries and never answers (a bound UDP
    socket), named by INGEST_DNS_SERVERS, with INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS short."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    settings.INGEST_DNS_SERVERS = [f"127.0.0.1:{server.getsockname()[1]}"]
    settings.INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS = DNS_TIMEOUT
    yield server
    server.close()
