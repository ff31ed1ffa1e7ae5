"""Where a webhook may point: http(s), public addresses, unless private ones are allowed."""

import pytest

from jobs.webhooks.addresses import InvalidWebhookURL, check, parse


@pytest.fixture(autouse=True)
def public_only(settings):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = False


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/hook", "http:// or https://"),
        ("https:///nohost", "no host"),
        ("https://user:pw@example.com/", "user name or password"),
        ("http://127.0.0.1:8000/hook", "loopback, private"),
        ("http://[::1]/hook", "loopback, private"),
        ("http://10.1.2.3/hook", "loopback, private"),
        ("http://192.168.0.10/hook", "loopback, private"),
        ("http://169.254.169.254/latest/meta-data/", "loopback, private"),
        ("http://100.100.100.200/", "metadata"),
        ("http://224.0.0.1/", "multicast"),
        ("http://[::ffff:127.0.0.1]/", "loopback, private"),
        ("http://localhost:9/", "loopback, private"),
        ("http://0.0.0.0/", "loopback, private"),
        ("https://" + "a" * 2000 + ".com/", "longer than"),
        ("http://example.com:99999/", "cannot be read"),
    ],
)
def test_refused_urls_say_why(url, reason):
    with pytest.raises(InvalidWebhookURL, match=reason):
        check(url)


def test_a_public_address_is_the_one_to_connect_to():
    target = check("https://93.184.215.14:8443/hooks/ingest?tenant=7")

    assert (target.scheme, target.host, target.port) == ("https", "93.184.215.14", 8443)
    assert target.path == "/hooks/ingest?tenant=7"
    assert str(target.address) == "93.184.215.14"


def test_private_addresses_pass_when_allowed(settings):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True

    assert str(check("http://127.0.0.1:8000/hook").address) == "127.0.0.1"


def test_default_ports_follow_the_scheme():
    assert parse("http://example.com")[2:] == (80, "/")
    assert parse("https://example.com/x")[2:] == (443, "/x")
