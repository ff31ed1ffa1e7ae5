"""API tokens are kept as hashes, may expire, and DRF's plain keys were carried over."""

import importlib
import io
import time
from datetime import timedelta

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from config.accounts import authentication as auth
from config.accounts.models import ApiToken
from config.accounts.tokens import digest_of, find_token, issue_token

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _forget_cached_tokens():
    auth._known.clear()
    yield
    auth._known.clear()


def get(key: str, path: str = "/api/documents/"):
    return APIClient().get(path, HTTP_AUTHORIZATION=f"Token {key}")


def create_token(*args: str) -> str:
    out = io.StringIO()
    call_command("create_token", *args, stdout=out)
    return out.getvalue()


def test_create_token_prints_the_key_alone_and_keeps_only_its_hash(alice):
    printed = create_token("alice")

    key = printed.strip()
    assert printed == key + "\n"
    assert len(key) == 40
    [token] = ApiToken.objects.filter(user=alice)
    assert token.digest == digest_of(key) != key
    assert token.prefix == key[:8]
    assert token.expires_at is None
    stored = [str(value) for value in ApiToken.objects.values_list().get()]
    assert not any(key in value for value in stored)
    assert get(key).status_code == 200


def test_the_header_stays_authorization_token_key(alice):
    issued = issue_token(alice, name="ci")

    response = APIClient().get("/api/documents/", HTTP_AUTHORIZATION=f"Token {issued.key}")

    assert response.status_code == 200
    assert response.wsgi_request.user == alice


def test_the_process_remembers_a_token_by_its_hash_not_its_key(alice, settings):
    settings.INGEST_TOKEN_CACHE_SECONDS = 60
    key = issue_token(alice).key

    assert get(key).status_code == 200

    assert list(auth._known) == [digest_of(key)]


def test_an_expired_token_answers_401_saying_so(alice):
    key = issue_token(alice, expires_at=timezone.now() - timedelta(seconds=1)).key

    response = get(key)

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    assert "expired" in response.json()["detail"]


def test_a_remembered_token_is_still_refused_the_moment_it_expires(alice, settings):
    settings.INGEST_TOKEN_CACHE_SECONDS = 60
    expires_at = timezone.now() + timedelta(seconds=3)
    key = issue_token(alice, expires_at=expires_at).key
    assert get(key).status_code == 200

    time.sleep((expires_at - timezone.now()).total_seconds() + 0.1)

    assert get(key).status_code == 401


def test_a_deleted_token_is_refused(alice, settings):
    settings.INGEST_TOKEN_CACHE_SECONDS = 0
    issued = issue_token(alice)
    issued.token.delete()

    assert get(issued.key).status_code == 401


def test_a_key_finds_its_token_and_user_as_the_orm_loads_them_in_one_query(
    alice, django_assert_num_queries
):
    alice.first_name, alice.last_login = "Alice", timezone.now()
    alice.save()
    issued = issue_token(alice, name="laptop", expires_at=timezone.now() + timedelta(days=1))

    with django_assert_num_queries(1):
        found = find_token(issued.key)
        assert found is not None
        user = found.user

    expected = ApiToken.objects.select_related("user").get(id=issued.token.id)
    for field in ApiToken._meta.concrete_fields:
        assert getattr(found, field.attname) == getattr(expected, field.attname), field.name
    for field in type(alice)._meta.concrete_fields:
        assert getattr(user, field.attname) == getattr(expected.user, field.attname), field.name
    assert not found._state.adding
    assert not user._state.adding


def test_an_unknown_key_finds_no_token(alice):
    issue_token(alice)

    assert find_token("0" * 40) is None


def test_a_token_of_a_deactivated_user_is_refused(alice, settings):
    settings.INGEST_TOKEN_CACHE_SECONDS = 0
    key = issue_token(alice).key
    alice.is_active = False
    alice.save()

    response = get(key)

    assert response.status_code == 401
    assert "inactive" in response.json()["detail"]


def test_create_token_expiry_and_replace(alice):
    old = create_token("alice").strip()

    new = create_token("alice", "--expires-in-days", "30", "--replace", "--name", "laptop").strip()

    [token] = ApiToken.objects.filter(user=alice)
    assert token.name == "laptop"
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)
    assert get(old).status_code == 401
    assert get(new).status_code == 200


def test_create_token_for_no_such_user_says_so(db):
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        create_token("nobody")


def test_drf_plain_keys_are_carried_over_as_hashes_and_their_table_dropped(alice):
    """The state a database left by DRF's authtoken was in, then the data migration."""
    old_key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
            "created timestamptz NOT NULL, user_id integer NOT NULL UNIQUE)"
        )
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, now(), %s)", [old_key, alice.pk])
        cursor.execute(
            "INSERT INTO django_migrations (app, name, applied) "
            "VALUES ('authtoken', '0001_initial', now())"
        )
    migration = importlib.import_module("config.accounts.migrations.0002_keys_from_drf_authtoken")

    with connection.schema_editor() as editor:
        migration.keep_drf_keys_as_hashes(apps, editor)

    assert "authtoken_token" not in connection.introspection.table_names()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM django_migrations WHERE app = 'authtoken'")
        assert cursor.fetchone() == (0,)
    token = ApiToken.objects.get(user=alice)
    assert token.digest == digest_of(old_key)
    assert get(old_key).status_code == 200


def test_the_token_admin_lists_tokens_but_cannot_add_or_show_them(alice, client):
    from django.contrib.auth.models import User

    admin = User.objects.create_superuser("root", password="root-password-1")
    client.force_login(admin)
    issued = issue_token(alice, name="laptop")

    listing = client.get("/admin/accounts/apitoken/").content.decode()

    assert issued.token.prefix in listing
    assert issued.key not in listing
    assert issued.token.digest not in listing
    assert client.get("/admin/accounts/apitoken/add/").status_code == 403
