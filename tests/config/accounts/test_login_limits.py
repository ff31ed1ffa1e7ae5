"""Sign-in (the page's and the admin's) is refused for a while after too many failures
from one address (for one user name, or for any), with a clear message; a user name alone
is never locked; passwords are validated."""

import ipaddress

import pytest
from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.INGEST_PROXY_COUNT = 0
    settings.INGEST_TRUSTED_PROXIES = []


def sign_in(
    username: str, password: str, *, address: str = "10.0.0.1", path: str = LOGIN, **headers
):
    return Client().post(
        path, {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )


def test_a_user_name_is_locked_from_the_address_its_failures_came_from(alice):
    tries = [sign_in("alice", "wrong", address="10.0.1.1").status_code for _ in range(3)]
    assert tries == [200, 200, 429]  # the failure that reaches the limit says so at once

    response = sign_in("alice", "alice-password", address="10.0.1.1")

    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many failed sign-ins" in page
    assert "about 15 minutes" in page
    assert "_auth_user_id" not in response.wsgi_request.session


def test_failures_from_elsewhere_never_lock_a_user_out(alice):
    """Someone who knows alice's user name cannot keep her out from their own addresses."""
    for n in range(9):
        sign_in("alice", "wrong", address=f"10.0.1.{n}")

    assert sign_in("alice", "alice-password", address="10.0.2.1").status_code == 302


def test_an_address_is_locked_after_its_failures_whatever_the_user_name(alice, bob):
    for name in ("carol", "dave", "erin"):
        sign_in(name, "guess", address="10.0.3.3")

    assert sign_in("bob", "bob-password", address="10.0.3.3").status_code == 429
    assert sign_in("bob", "bob-password", address="10.0.3.4").status_code == 302


def test_a_few_typos_do_not_lock_anyone_out(alice):
    sign_in("alice", "wrong")
    sign_in("alice", "wrong")

    assert sign_in("alice", "alice-password").status_code == 302


def test_the_admin_sign_in_is_limited_and_says_why(alice):
    User.objects.create_superuser("root", password="root-password-1")
    for _ in range(3):
        sign_in("root", "wrong", path=ADMIN_LOGIN)

    response = sign_in("root", "root-password-1", path=ADMIN_LOGIN)

    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many failed sign-ins" in page
    assert 'name="password"' in page  # the admin's own sign-in form, to try later


def test_a_client_cannot_pick_its_address_with_x_forwarded_for(alice):
    for number in range(3):
        sign_in(f"nobody{number}", "guess", HTTP_X_FORWARDED_FOR=f"192.0.2.{number}")

    response = sign_in("alice", "alice-password", HTTP_X_FORWARDED_FOR="192.0.2.99")

    assert response.status_code == 429


def test_behind_one_proxy_the_address_it_saw_is_counted(alice, bob, settings):
    settings.INGEST_TRUSTED_PROXIES = [ipaddress.ip_network("10.9.9.9/32")]
    settings.INGEST_PROXY_COUNT = 1
    for number in range(3):  # one client behind the proxy, lying about where it is
        sign_in(
            f"nobody{number}",
            "guess",
            address="10.9.9.9",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{number}, 198.51.100.7",
        )

    # Same client: locked, whatever it puts on the left.
    locked = sign_in(
        "bob", "bob-password", address="10.9.9.9", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.7"
    )
    # Another client through the same proxy: not.
    other = sign_in(
        "alice", "alice-password", address="10.9.9.9", HTTP_X_FORWARDED_FOR="203.0.113.5"
    )

    assert locked.status_code == 429
    assert other.status_code == 302


@pytest.mark.parametrize("password", ["short1", "password123", "12345678901", "alice-smith"])
def test_weak_passwords_are_refused(password):
    user = User(username="alice-smith", first_name="Alice")
    with pytest.raises(ValidationError):
        password_validation.validate_password(password, user)


def test_a_reasonable_password_passes(db):
    password_validation.validate_password("correct horse battery", User(username="alice"))


@pytest.mark.parametrize("path", ["/accounts/password_reset/", "/accounts/password_reset/done/"])
def test_password_reset_is_off_while_no_mail_server_is_set(path, settings):
    settings.INGEST_EMAIL_HOST = ""

    response = Client().post(path, {"email": "alice@example.com"})

    assert response.status_code == 404


def test_password_reset_is_served_once_a_mail_server_is_set(settings):
    settings.INGEST_EMAIL_HOST = "mail.example.com"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

    assert Client().get("/accounts/password_reset/").status_code == 200
