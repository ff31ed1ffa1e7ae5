"""Who may read /metrics: loopback, INGEST_METRICS_ALLOW_CIDRS, or the bearer token."""

import ipaddress

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

OUTSIDE = "203.0.113.7"


def get(remote: str, **headers: str) -> int:
    return Client().get("/metrics", REMOTE_ADDR=remote, **headers).status_code


def test_loopback_may_scrape():
    assert get("127.0.0.1") == 200
    assert get("::1") == 200


def test_another_address_is_refused():
    assert get(OUTSIDE) == 403


def test_an_allowed_network_may_scrape(settings):
    settings.INGEST_METRICS_ALLOW_CIDRS = [ipaddress.ip_network("203.0.113.0/24")]

    assert get(OUTSIDE) == 200
    assert get("198.51.100.1") == 403


def test_the_right_token_opens_it_and_a_wrong_one_does_not(settings):
    settings.INGEST_METRICS_TOKEN = "s3cret-scrape-token"

    assert get(OUTSIDE, HTTP_AUTHORIZATION="Bearer s3cret-scrape-token") == 200
    assert get(OUTSIDE, HTTP_AUTHORIZATION="Bearer wrong") == 403
    assert get(OUTSIDE, HTTP_AUTHORIZATION="Basic s3cret-scrape-token") == 403


def test_no_token_configured_means_no_token_opens_it():
    assert get(OUTSIDE, HTTP_AUTHORIZATION="Bearer ") == 403


def test_a_request_forwarded_by_a_local_proxy_is_not_taken_for_loopback():
    assert get("127.0.0.1", HTTP_X_FORWARDED_FOR=OUTSIDE) == 403


def test_only_get_is_answered():
    assert Client().post("/metrics").status_code == 405
