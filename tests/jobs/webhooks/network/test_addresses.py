"""Where a webhook may point: http(s), public addresses, unless private ones are allowed."""

import pytest

from jobs.webhooks.network.addresses import InvalidWebhookURL, check, parse, same_url


@pytest.fixture(autouse=True)
def public_only(settings):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = False


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/hook", "http:// or https://"),
        ("https:///nohost", "no host"),
        ("https://user:pw@example.com/", "user name or password"),
        ("http://127.0.0.1:8000/hook", "not on a public address"),
        ("http://[::1]/hook", "not on a public address"),
        ("http://10.1.2.3/hook", "not on a public address"),
        ("http://192.168.0.10/hook", "not on a public address"),
        ("http://169.254.169.254/latest/meta-data/", "not on a public address"),
        ("http://100.100.100.200/", "not on a public address"),
        ("http://224.0.0.1/", "not on a public address"),
        ("http://[::ffff:127.0.0.1]/", "not on a public address"),
        ("http://localhost:9/", "not on a public address"),
        ("http://0.0.0.0/", "not on a public address"),
        # 6to4 and Teredo addresses carrying a loopback or private IPv4 address inside.
        ("http://[2002:7f00:1::1]/", "not on a public address"),
        ("http://[2002:a00:5::1]/", "not on a public address"),
        ("http://[2001:0:a00:5:0:f5ff:7f00:1]/", "not on a public address"),
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


def test_a_refusal_never_says_what_a_name_resolves_to():
    with pytest.raises(InvalidWebhookURL) as refused:
        check("http://localhost:9/")

    assert "127.0.0.1" not in str(refused.value)
    assert "::1" not in str(refused.value)


def test_a_6to4_address_of_a_public_host_passes():
    assert str(check("http://[2002:808:808::1]/").address) == "2002:808:808::1"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("https://Example.com/hook", "https://example.com/hook"),
        ("https://example.com:443/hook", "https://example.com/hook"),
        ("http://example.com", "http://example.com/"),
        ("HTTP://EXAMPLE.COM:80/", "http://example.com/"),
    ],
)
def test_two_spellings_of_one_url_are_the_same(one, other):
    assert same_url(one) == same_url(other)


def test_paths_and_ports_tell_urls_apart():
    assert same_url("https://example.com/a") != same_url("https://example.com/A")
    assert same_url("https://example.com:8443/a") != same_url("https://example.com/a")


def test_a_service_on_https_refuses_plain_http_webhooks(settings):
    settings.INGEST_HTTPS = True

    with pytest.raises(InvalidWebhookURL, match="https only"):
        check("http://93.184.215.14/hook")
    assert check("https://93.184.215.14/hook").scheme == "https"


def test_plain_http_webhooks_may_be_allowed_on_an_https_service(settings):
    settings.INGEST_HTTPS = True
    settings.INGEST_WEBHOOK_ALLOW_HTTP = True

    assert check("http://93.184.215.14/hook").scheme == "http"
