"""manage.py reprocess <kind>: process documents again after a change of settings, a wave
at a time so the workers set the pace. Each re-run is a new job of the version search
serves (the owner sees no new version); progress is printed, the first Ctrl-C stops
queuing, and running the same command again continues where it stopped.

Kinds: `embeddings` (another embedding made their vectors), `ocr` (they failed no_text
before OCR was on) and `extraction` (they were read before their structure was).
docs/running/reprocessing.md tells when to run which.
"""

from types import ModuleType

from django.core.management.base import BaseCommand, CommandParser

from documents.management.reprocessing import embeddings, extraction, ocr

KINDS: dict[str, ModuleType] = {"embeddings": embeddings, "ocr": ocr, "extraction": extraction}


class Command(BaseCommand):
    help = (
        "Process documents again after a change of settings, a wave at a time: "
        "`reprocess embeddings` after the embedding changed, `reprocess ocr` after OCR was "
        "turned on, `reprocess extraction` to give documents read before their structure "
        "was read theirs. `manage.py reprocess <kind> --help` tells each one's options."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        kinds = parser.add_subparsers(
            dest="kind", required=True, metavar="{embeddings,ocr,extraction}"
        )
        for name, kind in KINDS.items():
            kind.add_arguments(kinds.add_parser(name, help=kind.HELP, description=kind.HELP))

    def handle(self, *args: object, kind: str, **options: object) -> None:
        KINDS[kind].handle(self, **options)
