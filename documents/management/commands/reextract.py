"""manage.py reextract: a short name for `manage.py reprocess extraction`
(documents/management/reprocessing/extraction.py)."""

from django.core.management.base import BaseCommand, CommandParser

from documents.management.reprocessing import extraction


class Command(BaseCommand):
    help = extraction.HELP + " The same as manage.py reprocess extraction."

    def add_arguments(self, parser: CommandParser) -> None:
        extraction.add_arguments(parser)

    def handle(self, *args: object, **options: object) -> None:
        extraction.handle(self, **options)  # type: ignore[arg-type]
