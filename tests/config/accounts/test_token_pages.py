"""/accounts/tokens/: a signed-in user makes, names, lists and revokes their own API
tokens; the key is shown once; another user's token is a 404."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from config.accounts import authentication as auth
from config.accounts.models import ApiToken
from config.accounts.tokens import digest_of, issue_token

pytestmark = pytest.mark.django_db

TOKENS = "/accounts/tokens/"


@pytest.fixture(autouse=True)
def _forget_cached_tokens():
    auth._known.clear()
    yield
    auth._known.clear()


def signed_in(user, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def shown_key(html: str) -> str:
    [key] = re.findall(r'<code id="new-key"[^>]*>([0-9a-f]{40})</code>', html)
    return key


def revoke_url(token: ApiToken) -> str:
    return f"{TOKENS}{token.pk}/revoke/"


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(TOKENS)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/accounts/tokens/")


def test_making_a_token_shows_its_key_once_and_keeps_only_its_hash(alice):
    client = signed_in(alice)

    made = client.post(TOKENS, {"name": "laptop", "expires_in_days": ""})

    assert made.status_code == 200
    assert "no-store" in made["Cache-Control"]
    key = shown_key(made.content.decode())
    [token] = ApiToken.objects.filter(user=alice)
    assert (token.name, token.prefix, token.digest) == ("laptop", key[:8], digest_of(key))
    assert token.expires_at is None
    again = client.get(TOKENS).content.decode()
    assert key not in again
    assert f"{key[:8]}…" in again
    assert "laptop" in again


def test_the_key_shown_works_under_bearer_on_the_api(alice):
    key = shown_key(signed_in(alice).post(TOKENS, {"name": "ci"}).content.decode())

    response = APIClient().get("/api/documents/", HTTP_AUTHORIZATION=f"Bearer {key}")

    assert response.status_code == 200


def test_a_token_may_expire(alice):
    signed_in(alice).post(TOKENS, {"name": "short", "expires_in_days": "30"})

    token = ApiToken.objects.get(user=alice)
    assert token.expires_at is not None
    assert abs(token.expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)


@pytest.mark.parametrize(
    "form",
    [{"name": ""}, {"name": "   "}, {"name": "x" * 101}, {"name": "a", "expires_in_days": "7"}],
)
def test_a_token_without_a_good_name_or_expiry_is_not_made(alice, form):
    response = signed_in(alice).post(TOKENS, form)

    assert response.status_code == 400
    assert 'id="new-key"' not in response.content.decode()
    assert not ApiToken.objects.exists()


def test_the_list_shows_the_users_own_tokens_newest_first_and_no_one_elses(alice, bob):
    issue_token(alice, name="made-first")
    issue_token(alice, name="made-last", expires_at=timezone.now() - timedelta(days=1))
    issue_token(bob, name="bobs-token")

    html = signed_in(alice).get(TOKENS).content.decode()

    assert re.findall(r'<td class="name">([^<]*)</td>', html) == ["made-last", "made-first"]
    assert "bobs-token" not in html
    assert '<span class="expired">expired</span>' in html


def test_making_a_token_needs_the_csrf_token(alice):
    response = signed_in(alice, csrf=True).post(TOKENS, {"name": "laptop"})

    assert response.status_code == 403
    assert not ApiToken.objects.exists()


def test_revoking_asks_first_then_deletes_on_post(alice):
    token = issue_token(alice, name="laptop").token
    client = signed_in(alice)

    asked = client.get(revoke_url(token))
    assert asked.status_code == 200
    assert "Revoke the token “laptop”?" in asked.content.decode()
    assert ApiToken.objects.filter(pk=token.pk).exists()

    revoked = client.post(revoke_url(token))

    assert revoked.status_code == 302
    assert revoked["Location"] == TOKENS
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    assert "Revoked the token “laptop”" in client.get(TOKENS).content.decode()


def test_a_revoked_key_is_refused_by_the_api(alice, settings):
    settings.INGEST_TOKEN_CACHE_SECONDS = 0
    issued = issue_token(alice, name="laptop")
    signed_in(alice).post(revoke_url(issued.token))

    response = APIClient().get("/api/documents/", HTTP_AUTHORIZATION=f"Token {issued.key}")

    assert response.status_code == 401


def test_revoking_needs_the_csrf_token(alice):
    token = issue_token(alice).token

    response = signed_in(alice, csrf=True).post(revoke_url(token))

    assert response.status_code == 403
    assert ApiToken.objects.filter(pk=token.pk).exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_users_token_is_a_404_and_stays(alice, bob, method):
    bobs = issue_token(bob, name="bobs-token").token

    response = getattr(signed_in(alice), method)(revoke_url(bobs))

    assert response.status_code == 404
    assert "bobs-token" not in response.content.decode()
    assert ApiToken.objects.filter(pk=bobs.pk).exists()


def test_the_header_links_to_the_tokens_page(alice):
    html = signed_in(alice).get("/").content.decode()

    assert f'<a href="{TOKENS}"' in html
