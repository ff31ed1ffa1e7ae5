"""`manage.py create_user` makes a normal user, as createsuperuser makes an administrator;
the admin adds users with Django's own UserAdmin; either signs in to the page."""

import io
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "correct horse battery staple"


def create_user(*args: str) -> str:
    out = io.StringIO()
    call_command("create_user", *args, stdout=out)
    return out.getvalue()


def test_it_makes_a_normal_user_with_the_password_from_the_environment(monkeypatch):
    monkeypatch.setenv("DJANGO_USER_PASSWORD", PASSWORD)

    printed = create_user("carol", "--email", "carol@example.com", "--noinput")

    carol = User.objects.get(username="carol")
    assert (carol.is_active, carol.is_staff, carol.is_superuser) == (True, False, False)
    assert carol.email == "carol@example.com"
    assert carol.check_password(PASSWORD)
    assert "Made user 'carol' (not staff" in printed
    assert "/accounts/tokens/" in printed
    assert "manage.py create_token carol" in printed


def test_the_new_user_signs_in_to_the_page(monkeypatch):
    monkeypatch.setenv("DJANGO_USER_PASSWORD", PASSWORD)
    create_user("carol", "--noinput")
    client = Client()

    response = client.post("/accounts/login/", {"username": "carol", "password": PASSWORD})

    assert response.status_code == 302
    assert client.get("/").status_code == 200


def test_without_the_variable_the_user_has_no_password_and_is_told_so(monkeypatch):
    monkeypatch.delenv("DJANGO_USER_PASSWORD", raising=False)

    printed = create_user("robot", "--noinput")

    assert not User.objects.get(username="robot").has_usable_password()
    assert "no password yet" in printed
    assert "manage.py changepassword robot" in printed


def test_an_existing_user_is_a_clear_error_and_stays_as_it_was(alice, monkeypatch):
    monkeypatch.setenv("DJANGO_USER_PASSWORD", PASSWORD)

    with pytest.raises(CommandError) as refused:
        create_user("alice", "--noinput")

    assert str(refused.value) == (
        "A user named 'alice' already exists. Give them a new password with "
        "`manage.py changepassword alice`, or an API token with `manage.py create_token alice`."
    )
    alice.refresh_from_db()
    assert alice.check_password("alice-password")


@pytest.mark.parametrize(
    ("args", "password", "says"),
    [
        (["carol", "--noinput"], "123", "too short"),
        (["carol", "--noinput"], "password", "too common"),
        (["bad name!", "--noinput"], PASSWORD, "Enter a valid username"),
        (["carol", "--email", "not-an-address", "--noinput"], PASSWORD, "valid email"),
    ],
)
def test_a_bad_password_name_or_address_is_refused_and_no_user_made(
    monkeypatch, args, password, says
):
    monkeypatch.setenv("DJANGO_USER_PASSWORD", password)

    with pytest.raises(CommandError, match=says):
        create_user(*args)

    assert not User.objects.exists()


def test_without_a_terminal_it_asks_for_noinput(monkeypatch):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)

    with pytest.raises(CommandError, match=r"--noinput.*DJANGO_USER_PASSWORD"):
        create_user("carol")


def test_at_a_terminal_it_asks_twice_until_the_passwords_match(monkeypatch):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    answers = iter(["first try here", "different words", PASSWORD, PASSWORD])
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    err = io.StringIO()

    call_command("create_user", "carol", stdout=io.StringIO(), stderr=err)

    assert User.objects.get(username="carol").check_password(PASSWORD)
    assert "The two passwords differ" in err.getvalue()


def test_the_command_run_for_real_prints_no_axes_banner():
    result = subprocess.run(
        [sys.executable, "manage.py", "create_user", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert "AXES" not in result.stdout + result.stderr
    assert "DJANGO_USER_PASSWORD" in result.stdout


def test_the_admin_adds_users_with_djangos_user_admin():
    assert isinstance(admin.site._registry[User], UserAdmin)


def test_a_user_added_in_the_admin_signs_in_to_the_page(admin_client):
    added = admin_client.post(
        "/admin/auth/user/add/",
        {
            "username": "dave",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "usable_password": "true",
        },
    )
    assert added.status_code == 302, added.content[:500]
    dave = User.objects.get(username="dave")
    assert not dave.is_staff
    client = Client()

    signed_in = client.post("/accounts/login/", {"username": "dave", "password": PASSWORD})

    assert signed_in.status_code == 302
    assert client.get("/").status_code == 200
