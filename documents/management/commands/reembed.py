"""manage.py reembed: process again, as new versions, the ready documents whose vectors
another embedding (provider, model or size) made than the one configured now.

Queues in waves so the workers and the shared rate limiter set the pace, prints progress,
stops queuing on Ctrl-C, and continues where it stopped when run again.
"""

import time
import uuid
from collections import Counter
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from documents.management.waves import WaveRun
from documents.upkeep import reembed
from jobs import fairness
from jobs.models import Lane
from search.checks import column_dimensions
from search.embedding.signature import current_signature


def default_wave() -> int:
    """Twice the batch lane's worker threads: each thread has one job waiting behind the
    one it runs, so the oldest queued job waits about one job's time. A longer queue would
    only age: past INGEST_MAX_QUEUE_AGE_SECONDS admission control refuses every upload."""
    return 2 * fairness.lane_threads(Lane.BATCH)


class Command(BaseCommand):
    help = (
        "Queue the ready documents whose vectors another embedding made (provider, model or "
        "dimensions) as new versions of the same file, on the batch lane, a wave at a time. "
        "Search serves each document's old vectors until its new version is ready. Run it "
        "with the new settings, after the workers restarted with them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
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
        parser.add_argument("--owner", metavar="USERNAME", help="Only this user's documents.")
        parser.add_argument(
            "--wave",
            type=int,
            default=None,
            help="At most this many jobs in flight on the batch lane (anyone's) before more "
            "are queued (default: twice the lane's worker threads, WORKER_BATCH_PROCESSES x "
            "WORKER_BATCH_THREADS).",
        )
        parser.add_argument(
            "--poll",
            type=float,
            default=2.0,
            metavar="SECONDS",
            help="How often to look at the jobs (default: %(default)s).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Print what would be queued; change nothing."
        )
        parser.add_argument(
            "--adopt-unrecorded",
            action="store_true",
            help="Record the configured embedding as the maker of ready versions processed "
            "before embeddings were recorded, instead of embedding them again; queues nothing.",
        )

    def handle(
        self,
        *args: object,
        everything: bool,
        before: str | None,
        owner: str | None,
        wave: int | None,
        poll: float,
        dry_run: bool,
        adopt_unrecorded: bool,
        **options: object,
    ) -> None:
        wave = default_wave() if wave is None else wave
        if wave < 1:
            raise CommandError("--wave must be at least 1.")
        if before and not everything:
            raise CommandError("--before goes with --all.")
        _refuse_a_size_change()
        scope = reembed.Scope(
            target=current_signature(),
            everything=everything,
            before=_parse_before(before),
            owner_id=_owner_id(owner),
        )
        if adopt_unrecorded:
            adopted = 0 if dry_run else reembed.adopt_unrecorded(scope)
            survey = reembed.survey(scope)
            would = f"would record {survey.made_by['']}" if dry_run else f"recorded {adopted}"
            self.stdout.write(f"{would} ready versions as made by {scope.target}")
            return
        survey = reembed.survey(scope)
        self._describe(scope, survey, dry_run)
        if dry_run:
            return
        self.stdout.write(f"waves: at most {wave} jobs in flight on the batch lane")
        Run(self, scope, wave=wave, poll=poll, total=survey.to_queue).go()

    def _describe(self, scope: reembed.Scope, survey: reembed.Survey, dry_run: bool) -> None:
        self.stdout.write(f"configured embedding: {scope.target}")
        made_by = ", ".join(
            f"{count} by {signature or 'an unrecorded embedding'}"
            for signature, count in sorted(survey.made_by.items(), key=lambda i: (-i[1], i[0]))
        )
        self.stdout.write(f"{survey.ready} ready documents" + (f": {made_by}" if made_by else ""))
        if scope.everything and scope.before is not None:
            self.stdout.write(f"--all: those whose vectors were made before {_iso(scope.before)}")
        would = "would queue" if dry_run else "to queue"
        line = f"{would}: {survey.to_queue}"
        if survey.in_flight:
            line += f"; skipped, a version in flight: {survey.in_flight}"
        if survey.newer_not_ready:
            line += f"; skipped, latest version failed or cancelled: {survey.newer_not_ready}"
        self.stdout.write(line)


class Run(WaveRun):
    """One run's loop: queue while the batch lane has room, report, stop on Ctrl-C."""

    REPORT_EVERY = 30.0  # seconds between progress lines when nothing changes

    def __init__(
        self, command: Command, scope: reembed.Scope, *, wave: int, poll: float, total: int
    ) -> None:
        self.out, self.err = command.stdout, command.stderr
        self.scope, self.wave, self.poll, self.total = scope, wave, poll, total
        self.queued = 0
        self.pending: set[uuid.UUID] = set()  # jobs this run queued that have not ended
        self.ended: Counter[str] = Counter()  # DONE, FAILED, or another embedding's name
        self.refused: set[uuid.UUID] = set()  # documents that no longer qualified when locked
        self.stopping = False
        self.last_line, self.last_time = "", 0.0

    def go(self) -> None:
        with self._ctrl_c():
            self._queue_all()
            self._wait()
        self._summary()
        if others := self.others:
            raise CommandError(
                f"{sum(others.values())} new versions were embedded by {', '.join(others)}, "
                f"not {self.scope.target}: the workers run with other settings than this "
                "command. Restart them with the new settings, then run reembed again."
            )

    def _queue_all(self) -> None:
        while not self._report():
            room = self.wave - reembed.lane_in_flight()
            if room > 0:
                ids = reembed.next_candidates(self.scope, limit=room, skip=self.refused)
                if not ids:
                    return
                for document_id in ids:
                    if self.stopping:
                        return
                    job = reembed.requeue(document_id, self.scope)
                    if job is None:
                        self.refused.add(document_id)
                    else:
                        self.queued += 1
                        self.pending.add(job.id)
            self._sleep()

    def _wait(self) -> None:
        """Until the jobs this run queued have ended (Ctrl-C leaves them to the workers)."""
        while not self.stopping and not self._report() and self.pending:
            self._sleep()

    def _update(self) -> None:
        for job_id, ending in reembed.endings(list(self.pending), self.scope.target).items():
            self.pending.discard(job_id)
            self.ended[ending] += 1

    @property
    def others(self) -> dict[str, int]:
        """New versions that a worker embedded with other settings, by signature."""
        return {
            name: count
            for name, count in self.ended.items()
            if name not in (reembed.DONE, reembed.FAILED)
        }

    def _counts(self) -> str:
        return (
            f"queued {self.queued} of {self.total}, done {self.ended[reembed.DONE]}, "
            f"failed {self.ended[reembed.FAILED]}, in flight {len(self.pending)}"
        )

    def _report(self) -> bool:
        """Print progress when it changed (or now and then); True when the run must stop:
        workers are embedding with other settings than this command's."""
        self._update()
        line = self._counts()
        now = time.monotonic()
        if line != self.last_line or now - self.last_time > self.REPORT_EVERY:
            self.out.write(line)
            self.last_line, self.last_time = line, now
        if self.others:
            self.stopping = True  # go() says why, once the summary is out
        return self.stopping

    def _summary(self) -> None:
        self._update()
        others = sum(self.others.values())
        self.out.write(
            f"finished: {self._counts()}"
            + (f", embedded with other settings {others}" if others else "")
        )
        if self.ended[reembed.FAILED]:
            self.out.write(
                "Failed new versions leave search on the old vectors; the admin's dead-letter "
                "console lists them (retry there; reembed skips a document whose latest "
                "version failed)."
            )
        if self.stopping or self.pending:
            again = "manage.py reembed"
            if self.scope.everything and self.scope.before is not None:
                again += f" --all --before {_iso(self.scope.before)}"
            self.out.write(f"Jobs in flight finish on their own; to continue, run: {again}")


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
        f"4. run `manage.py reembed` (docs/running/embeddings.md)."
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


def _owner_id(username: str | None) -> int | None:
    if username is None:
        return None
    try:
        return User.objects.get(username=username).pk
    except User.DoesNotExist:
        raise CommandError(f"No user {username!r}.") from None
