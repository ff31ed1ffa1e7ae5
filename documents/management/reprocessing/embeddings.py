"""manage.py reprocess embeddings (alias reembed): embed again, with the embedding
configured now, the ready documents whose vectors another one (provider, model or size)
made (documents/upkeep/reembed.py says which, and how a re-run stays out of sight)."""

from datetime import datetime

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from documents.management.reprocessing import (
    add_common_arguments,
    owner_id,
    run_waves,
    wave_size,
)
from documents.upkeep import reembed, waves
from search.checks import column_dimensions
from search.embedding.signature import current_signature

HELP = (
    "Embed again, on the batch lane and a wave at a time, the ready documents whose vectors "
    "another embedding made (provider, model or dimensions). Each is a new job of the "
    "version search serves, which keeps its old vectors until the new ones are in. Run it "
    "with the new settings, after the workers restarted with them."
)


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="Every ready document, whatever embedding made it (for a change the "
        "signature cannot see, such as other weights under the same model name).",
    )
    parser.add_argument(
        "--before",
        metavar="ISO-TIME",
        help="With --all: only documents whose vectors were made before this time "
        "(default: when the run starts). A run prints the value that continues it.",
    )
    parser.add_argument(
        "--adopt-unrecorded",
        action="store_true",
        help="Record the configured embedding as the maker of ready versions processed "
        "before embeddings were recorded, instead of embedding them again; queues nothing.",
    )
    add_common_arguments(
        parser,
        wave_help="At most this many jobs in flight on the batch lane (anyone's) before more "
        "are queued (default: twice the lane's worker threads, WORKER_BATCH_PROCESSES x "
        "WORKER_BATCH_THREADS).",
    )


def handle(
    command: BaseCommand,
    *,
    everything: bool,
    before: str | None,
    adopt_unrecorded: bool,
    owner: str | None,
    wave: int | None,
    poll: float,
    dry_run: bool,
    **options: object,
) -> None:
    size = wave_size(wave, waves.batch_wave())
    if before and not everything:
        raise CommandError("--before goes with --all.")
    _refuse_a_size_change()
    scope = reembed.Scope(
        target=current_signature(),
        everything=everything,
        before=_parse_before(before) if everything else None,
        owner_id=owner_id(owner),
    )
    if adopt_unrecorded:
        adopted = 0 if dry_run else reembed.adopt_unrecorded(scope)
        survey = reembed.survey(scope)
        would = f"would record {survey.made_by['']}" if dry_run else f"recorded {adopted}"
        command.stdout.write(f"{would} ready versions as made by {scope.target}")
        return
    survey = reembed.survey(scope)
    for line in _describe(scope, survey, dry_run):
        command.stdout.write(line)
    if not dry_run:
        kind = reembed.Reembedding(scope)
        run_waves(command, kind, wave=size, poll=poll, total=survey.to_queue)


def _describe(scope: reembed.Scope, survey: reembed.Survey, dry_run: bool) -> list[str]:
    made_by = ", ".join(
        f"{count} by {signature or 'an unrecorded embedding'}"
        for signature, count in sorted(survey.made_by.items(), key=lambda i: (-i[1], i[0]))
    )
    lines = [
        f"configured embedding: {scope.target}",
        f"{survey.ready} ready documents" + (f": {made_by}" if made_by else ""),
    ]
    if scope.everything and scope.before is not None:
        lines.append(f"--all: those whose vectors were made before {_iso(scope.before)}")
    line = f"{'would queue' if dry_run else 'to queue'}: {survey.to_queue}"
    if survey.in_flight:
        line += f"; skipped, a version in flight: {survey.in_flight}"
    if survey.newer_not_ready:
        line += f"; skipped, latest version failed or cancelled: {survey.newer_not_ready}"
    return [*lines, line]


def _refuse_a_size_change() -> None:
    """A vector(N) column holds one size: old and new vectors cannot live side by side."""
    stored = column_dimensions()
    configured = settings.INGEST_EMBED_DIMENSIONS
    if stored is None or stored == configured:
        return
    raise CommandError(
        f"The search_chunk.embedding column holds {stored}-dimensional vectors and "
        f"INGEST_EMBED_DIMENSIONS is {configured}. A column holds one size, so new vectors "
        f"cannot be built beside the old ones while search serves them. Either keep "
        f"INGEST_EMBED_DIMENSIONS={stored} (most OpenAI-style models can answer in that size), "
        f"or change the size, which takes vector search away until documents are processed "
        f"again: 1. stop the workers; 2. in a migration, delete the chunks and ALTER TABLE "
        f"search_chunk ALTER COLUMN embedding TYPE vector({configured}), applied with "
        f"`manage.py migrate --skip-checks`; 3. start the workers with the new settings; "
        f"4. run `manage.py reprocess embeddings` (docs/running/embeddings.md)."
    )


def _parse_before(value: str | None) -> datetime:
    if value is None:
        return timezone.now()
    parsed = parse_datetime(value)
    if parsed is None:
        raise CommandError(f"--before {value!r} is not an ISO date and time.")
    if timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed)
    return parsed


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="microseconds")
