"""Forwarded headers are believed only from INGEST_TRUSTED_PROXIES (config/http/proxies.py), for
the client's address (the /metrics address check, the sign-in limits) and for the scheme
and host; the `ws` process's application answers nothing but its socket."""

import ipaddress

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.core import checks
from django.test import Client

from config.http import proxies
from config.ws_app import application as ws_application

pytestmark = pytest.mark.django_db

PROXY = "203.0.113.7"  # the connection's own address when a proxy forwards


def networks(*cidrs: str) -> list:
    return [ipaddress.ip_network(cidr) for cidr in cidrs]


@pytest.fixture(autouse=True)
def metrics_from_ten(settings):
    settings.INGEST_METRICS_ALLOW_CIDRS = networks("10.0.0.0/8")
    settings.INGEST_METRICS_TOKEN = ""
    settings.INGEST_TRUSTED_PROXIES = []
    settings.INGEST_PROXY_COUNT = 0


def test_a_stranger_cannot_claim_an_allowed_address_for_metrics():
    response = Client().get("/metrics", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="10.1.2.3")

    assert response.status_code == 403


def test_a_trusted_proxy_speaks_for_its_client(settings):
    settings.INGEST_TRUSTED_PROXIES = networks("203.0.113.0/24")

    allowed = Client().get("/metrics", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="10.1.2.3")
    refused = Client().get("/metrics", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.1")

    assert allowed.status_code == 200
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("forwarded", "client"),
    [
        ("", PROXY),  # nothing forwarded: the proxy itself
        ("198.51.100.1", "198.51.100.1"),
        ("1.2.3.4, 198.51.100.1", "198.51.100.1"),  # the left entry is the client's say
        ("198.51.100.1, 203.0.113.9", "198.51.100.1"),  # past a second trusted proxy
    ],
)
def test_the_client_is_the_first_untrusted_hop_from_the_right(settings, forwarded, client):
    settings.INGEST_TRUSTED_PROXIES = networks("203.0.113.0/24")
    meta = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": forwarded}

    assert proxies.client_address(meta) == client


def test_an_untrusted_connection_is_its_own_address_whatever_it_forwards():
    meta = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "10.1.2.3"}

    assert proxies.client_address(meta) == PROXY


def test_x_forwarded_proto_counts_only_from_a_trusted_proxy(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = []

    stranger = Client().get("/healthz", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_PROTO="https")
    settings.INGEST_TRUSTED_PROXIES = networks(f"{PROXY}/32")
    proxied = Client().get("/healthz", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_PROTO="https")

    assert stranger.status_code == 301  # not believed: plain http, sent to https
    assert proxied.status_code == 200


def test_rotating_x_forwarded_for_does_not_dodge_the_sign_in_limit(alice, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for n in range(3):
        Client().post(
            "/accounts/login/",
            {"username": f"nobody{n}", "password": "guess"},
            REMOTE_ADDR=PROXY,
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}",
        )

    response = Client().post(
        "/accounts/login/",
        {"username": "alice", "password": "alice-password"},
        REMOTE_ADDR=PROXY,
        HTTP_X_FORWARDED_FOR="192.0.2.99",
    )

    assert response.status_code == 429


def test_a_proxy_setting_without_named_proxies_is_warned_about(settings):
    settings.INGEST_TRUST_X_FORWARDED_PROTO = True

    found = [m for m in checks.run_checks(tags=["security"]) if m.id == "accounts.W002"]

    assert found
    assert "INGEST_TRUST_X_FORWARDED_PROTO" in found[0].msg


@pytest.mark.parametrize(
    ("path", "status"),
    [("/metrics", 404), ("/admin/", 404), ("/api/documents/", 404), ("/", 404)],
)
def test_the_socket_process_serves_no_page(path, status):
    answer = async_to_sync(HttpCommunicator(ws_application, "GET", path).get_response)()

    assert answer["status"] == status


def test_plain_http_to_the_socket_path_is_told_to_upgrade():
    answer = async_to_sync(HttpCommunicator(ws_application, "GET", "/ws/status/").get_response)()

    assert answer["status"] == 426
