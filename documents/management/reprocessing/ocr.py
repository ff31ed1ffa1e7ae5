"""manage.py reprocess ocr (alias reocr): retry, now that OCR is on, the documents that
failed `no_text` before it was (documents/upkeep/reocr.py), a wave at a time so the OCR
lane sets the pace."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.management.reprocessing import (
    add_common_arguments,
    owner_id,
    run_waves,
    wave_size,
)
from documents.upkeep import reocr
from jobs import failures, fairness
from jobs.models import Lane

HELP = (
    "Retry the documents whose current job failed no_text before OCR was turned on (read "
    "with OCR off, or before OCR existed), a wave at a time: each job goes back to its "
    "lane, its text layer is read and its scanned pages go on to the OCR lane. Refused "
    "while INGEST_OCR is off. Run it after the workers restarted with OCR on."
)


def default_wave() -> int:
    """The OCR lane's worker threads (WORKER_OCR_PROCESSES x WORKER_OCR_THREADS): a page
    of OCR takes seconds, a document minutes, so a longer queue would only wait."""
    return fairness.lane_threads(Lane.OCR)


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="Also the no_text documents OCR already read and found nothing on (after a "
        "change of INGEST_OCR_LANGUAGES or INGEST_OCR_DPI, or INGEST_OCR=force).",
    )
    add_common_arguments(
        parser,
        wave_help="At most this many jobs in flight on the OCR lane (anyone's, and this run's "
        "on their way to it) before more are queued (default: the lane's worker threads, "
        "WORKER_OCR_PROCESSES x WORKER_OCR_THREADS).",
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
    if not failures.ocr_on():
        raise CommandError(
            "INGEST_OCR is off, so a retried document would fail no_text again. Set "
            "INGEST_OCR=auto (or force) for the workers and this command, restart the "
            "workers, then run manage.py reprocess ocr."
        )
    size = wave_size(wave, default_wave())
    scope = reocr.Scope(everything=everything, owner_id=owner_id(owner))
    survey = reocr.survey(scope)
    before = survey.failed - survey.read_by_ocr
    command.stdout.write(f"INGEST_OCR: {settings.INGEST_OCR}")
    command.stdout.write(
        f"{survey.failed} documents failed no_text: {before} read before OCR was on, "
        f"{survey.read_by_ocr} already read by OCR"
    )
    line = f"{'would queue' if dry_run else 'to queue'}: {survey.to_queue}"
    if survey.read_by_ocr and not everything:
        line += f"; skipped, already read by OCR: {survey.read_by_ocr} (--all takes them)"
    command.stdout.write(line)
    if not dry_run:
        run_waves(command, reocr.Reocr(scope), wave=size, poll=poll, total=survey.to_queue)
