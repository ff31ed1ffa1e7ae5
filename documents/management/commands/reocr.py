"""manage.py reocr: the name `manage.py reprocess ocr` had first, kept for the scripts and
docs that use it (documents/management/reprocessing/ocr.py)."""

from django.core.management.base import BaseCommand, CommandParser

from documents.management.reprocessing import ocr


class Command(BaseCommand):
    help = ocr.HELP + " The same as manage.py reprocess ocr."

    def add_arguments(self, parser: CommandParser) -> None:
        ocr.add_arguments(parser)

    def handle(self, *args: object, **options: object) -> None:
        ocr.handle(self, **options)  # type: ignore[arg-type]
