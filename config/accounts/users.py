"""Making a normal user: one who signs in to the page and uses the API, with no staff
status and no way into the admin (`manage.py create_user`; the admin's Users page makes
them too)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class UserExists(Exception):
    """A user with that name is there already."""


def check_username(username: str) -> None:
    """ValidationError for a name the user model refuses; UserExists for one taken."""
    user_model = get_user_model()
    if not username:
        raise ValidationError("The user name is empty.")
    user_model.username_validator(username)
    if user_model.objects.filter(**{user_model.USERNAME_FIELD: username}).exists():
        raise UserExists(username)


def check_password(password: str, *, username: str, email: str) -> None:
    """ValidationError with every reason AUTH_PASSWORD_VALIDATORS gives against it."""
    password_validation.validate_password(
        password, get_user_model()(username=username, email=email)
    )


def create_user(*, username: str, email: str = "", password: str | None) -> User:
    """A new active, non-staff user. `password` None: none is set (the user cannot sign in
    until one is, but API tokens work). Raises ValidationError for a bad name, address or
    password (checked with AUTH_PASSWORD_VALIDATORS), UserExists for a name taken, also
    by a concurrent call."""
    check_username(username)
    if email:
        validate_email(email)
    if password is not None:
        check_password(password, username=username, email=email)
    try:
        with transaction.atomic():
            return get_user_model().objects.create_user(
                username=username, email=email, password=password
            )
    except IntegrityError:
        raise UserExists(username) from None
