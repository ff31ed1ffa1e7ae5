"""manage.py reprocess extraction (alias reextract): read again, with the structure reader,
the ready documents another reader read (documents/upkeep/reextract.py says which, and
how search keeps answering meanwhile)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.management.reprocessing import (
    add_common_arguments,
    owner_id,
    run_waves,
    wave_size,
)
from documents.upkeep import reextract, waves
from search.pipeline import layout

HELP = (
    "Read again, on the batch lane and a wave at a time, the ready documents whose text "
    "was read before their structure was (headings, tables, page furniture, boxes): each "
    "is a new job of the version search serves, which keeps answering from the old chunks "
    "until the new ones are in. Refused while INGEST_STRUCTURE is off."
)


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="Every ready document, whatever read it (after the reader improved).",
    )
    add_common_arguments(
        parser,
        wave_help="At most this many jobs in flight on the batch lane (anyone's) before more "
        "are queued (default: twice the lane's worker threads).",
    )


def handle(
    command: BaseCommand,
    *,
    everything: bool,
    owner: str | None,
    wave: int | None,
    poll: float,
    dry_run: bool,
    **options: object,
) -> None:
    if settings.INGEST_STRUCTURE != "on":
        raise CommandError(
            "INGEST_STRUCTURE is off, so a document read again would still have no "
            "structure. Set INGEST_STRUCTURE=on for the workers and this command, restart "
            "the workers, then run manage.py reprocess extraction."
        )
    size = wave_size(wave, waves.batch_wave())
    scope = reextract.Scope(target=layout.READER, everything=everything, owner_id=owner_id(owner))
    survey = reextract.survey(scope)
    read_by = ", ".join(
        f"{count} by {reader or 'an unrecorded reader'}"
        for reader, count in sorted((survey.read_by or {}).items(), key=lambda i: (-i[1], i[0]))
    )
    command.stdout.write(f"reader: {scope.target}")
    command.stdout.write(f"{survey.ready} ready documents" + (f": {read_by}" if read_by else ""))
    line = f"{'would queue' if dry_run else 'to queue'}: {survey.to_queue}"
    if survey.in_flight:
        line += f"; skipped, a version in flight: {survey.in_flight}"
    command.stdout.write(line)
    if not dry_run:
        run_waves(
            command, reextract.Reextraction(scope), wave=size, poll=poll, total=survey.to_queue
        )
