"""manage.py erase_user USERNAME|ID [--yes]: erase an account and all it holds
(documents/erasure.py)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.erasure import erase_user
from documents.models import Document


class Command(BaseCommand):
    help = (
        "Erase an account (GDPR erasure): its documents, jobs, chunks and vectors, stored "
        "files, webhook events and deliveries (pending ones too), cached query embeddings, "
        "tokens and webhook endpoints, then the user, in batches. Run it again after a "
        "crash, or with the id of a user already deleted: it finishes what is left."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("user", help="The username, or the numeric id.")
        parser.add_argument("--yes", action="store_true", help="Do not ask to confirm.")

    def handle(self, *args: object, user: str, yes: bool, **options: object) -> None:
        users = get_user_model().objects
        found = users.filter(username=user).first()
        if found is None and user.isdigit():
            found = users.filter(id=int(user)).first()
        if found is None and not user.isdigit():
            raise CommandError(f"No user {user!r}. Give the username, or the id to finish.")
        user_id = found.pk if found is not None else int(user)
        count = Document.objects.filter(owner_id=user_id).count()
        name = found.get_username() if found is not None else f"id {user_id} (already deleted)"
        if not yes and input(f"Erase {name} and {count} documents? [y/N] ").lower() != "y":
            raise CommandError("Nothing erased.")
        erased = erase_user(user_id, on_batch=self._progress)
        self.stdout.write(f"erased {name}: {erased} documents, their files and all the rest")

    def _progress(self, done: int) -> None:
        self.stdout.write(f"  {done} documents erased")
