"""`manage.py create_user alice`: a normal user (not staff: the page and the API, not the
admin), as `createsuperuser` makes an administrator.

The password is asked twice at a terminal; with --noinput it is read from
DJANGO_USER_PASSWORD, and without that variable the user gets no password (API tokens
work; signing in to the page waits for `manage.py changepassword`). Passwords pass
AUTH_PASSWORD_VALIDATORS either way. Afterwards it says what to do next."""

from __future__ import annotations

import getpass
import os
import sys
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.accounts import users

PASSWORD_VARIABLE = "DJANGO_USER_PASSWORD"


class Command(BaseCommand):
    help = (
        "Make a normal (non-staff) user who signs in to the page and uses the API. "
        f"With --noinput the password comes from {PASSWORD_VARIABLE}."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="", help="The user's e-mail address (optional).")
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_false",
            dest="interactive",
            help=f"Ask nothing: the password is {PASSWORD_VARIABLE}'s, or none when it is unset.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username, email = options["username"], options["email"].strip()
        try:
            users.check_username(username)
            password = self._password(options["interactive"], username, email)
            user = users.create_user(username=username, email=email, password=password)
        except users.UserExists:
            raise CommandError(
                f"A user named {username!r} already exists. Give them a new password with "
                f"`manage.py changepassword {username}`, or an API token with "
                f"`manage.py create_token {username}`."
            ) from None
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(self._next_steps(user.get_username(), has_password=password is not None))

    def _password(self, interactive: bool, username: str, email: str) -> str | None:
        if not interactive:
            return os.environ.get(PASSWORD_VARIABLE) or None
        if not sys.stdin.isatty():
            raise CommandError(
                "No terminal to ask the password at: run with --noinput, the password "
                f"in {PASSWORD_VARIABLE}."
            )
        while True:
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                self.stderr.write("The two passwords differ. Try again.")
                continue
            try:
                users.check_password(password, username=username, email=email)
            except ValidationError as exc:
                self.stderr.write(" ".join(exc.messages))
                continue
            return password

    def _next_steps(self, username: str, *, has_password: bool) -> str:
        sign_in = (
            "  - sign in to the page at /accounts/login/, and make API tokens at /accounts/tokens/"
            if has_password
            else f"  - {username} has no password yet, so cannot sign in to the page: "
            f"`manage.py changepassword {username}` sets one"
        )
        return "\n".join(
            [
                f"Made user {username!r} (not staff: the page and the API, not the admin).",
                "Next:",
                sign_in,
                f"  - or make an API token here: `manage.py create_token {username} --name laptop`",
                "  - staff status (the admin, /ops/) is given on the admin's Users page",
            ]
        )
