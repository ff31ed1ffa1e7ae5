"""manage.py reembed: the name `manage.py reprocess embeddings` had first, kept for the
scripts and docs that use it (documents/management/reprocessing/embeddings.py)."""

from django.core.management.base import BaseCommand, CommandParser

from documents.management.reprocessing import embeddings


class Command(BaseCommand):
    help = embeddings.HELP + " The same as manage.py reprocess embeddings."

    def add_arguments(self, parser: CommandParser) -> None:
        embeddings.add_arguments(parser)

    def handle(self, *args: object, **options: object) -> None:
        embeddings.handle(self, **options)  # type: ignore[arg-type]
