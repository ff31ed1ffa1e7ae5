"""manage.py erase_user USERNAME [--yes], or erase_user --id ID [--yes]: erase an account
and all it holds (documents/upkeep/erasure.py).

A name and an id are given apart: a username may be all digits, and `erase_user 7` must
never erase the user whose id is 7 when it meant the one named 7 (or the other way round).
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.models import Document
from documents.upkeep.erasure import erase_user


class Command(BaseCommand):
    help = (
        "Erase an account (GDPR erasure): its documents, jobs, chunks and vectors, stored "
        "files, webhook events and deliveries (pending ones too), cached query embeddings, "
        "tokens and webhook endpoints, then the user, in batches. Name the user by username, "
        "or by --id; run it again after a crash, or with --id of a user already deleted: it "
        "finishes what is left."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", nargs="?", help="The username (never an id).")
        parser.add_argument(
            "--id",
            type=int,
            dest="user_id",
            metavar="ID",
            help="The user's numeric id instead, also of a user already deleted.",
        )
        parser.add_argument("--yes", action="store_true", help="Do not ask to confirm.")

    def handle(
        self, *args: object, username: str | None, user_id: int | None, yes: bool, **options: object
    ) -> None:
        user_id, name = _chosen(username, user_id)
        count = Document.objects.filter(owner_id=user_id).count()
        if not yes and input(f"Erase {name} and {count} documents? [y/N] ").lower() != "y":
            raise CommandError("Nothing erased.")
        erased = erase_user(user_id, on_batch=self._progress)
        self.stdout.write(f"erased {name}: {erased} documents, their files and all the rest")

    def _progress(self, done: int) -> None:
        self.stdout.write(f"  {done} documents erased")


def _chosen(username: str | None, user_id: int | None) -> tuple[int, str]:
    """The id of the account to erase, and how to name it."""
    if (username is None) == (user_id is None):
        raise CommandError("Give a username, or --id ID, not both.")
    users = get_user_model().objects
    if user_id is not None:  # the user may be gone already: what is left is erased
        found = users.filter(id=user_id).first()
        return user_id, found.get_username() if found else f"id {user_id} (already deleted)"
    found = users.filter(username=username).first()
    if found is None:
        raise CommandError(
            f"No user named {username!r}. To finish erasing a user already deleted, give "
            "its id: --id ID."
        )
    return found.pk, found.get_username()
