"""`manage.py create_token alice`: a new API token for alice, its key printed alone on
stdout (so `TOKEN=$(manage.py create_token alice)` works). Only the key's hash is kept:
the key cannot be shown again, so a lost one is replaced, not looked up."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from config.accounts.tokens import issue_token


class Command(BaseCommand):
    help = "Make an API token for a user and print its key (shown this once only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="", help="A label, e.g. laptop or ci.")
        parser.add_argument(
            "--expires-in-days",
            type=int,
            default=None,
            help="The token stops working after this many days (default: never).",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Delete the user's other tokens first (a key that leaked).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["expires_in_days"]
        if days is not None and days < 1:
            raise CommandError("--expires-in-days must be at least 1")
        user_model = get_user_model()
        try:
            user = user_model.objects.get(**{user_model.USERNAME_FIELD: options["username"]})
        except user_model.DoesNotExist:
            raise CommandError(f"No user named {options['username']!r}") from None
        if options["replace"]:
            user.api_tokens.all().delete()
        expires_at = timezone.now() + timedelta(days=days) if days is not None else None
        issued = issue_token(user, name=options["name"], expires_at=expires_at)
        self.stdout.write(issued.key)
