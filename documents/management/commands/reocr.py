"""manage.py reocr: retry, now that OCR is on, the documents that failed `no_text` before
it was (documents/upkeep/reocr.py), a wave at a time so the OCR lane sets the pace.

Prints progress, stops queuing on Ctrl-C, and continues where it stopped when run again
(a retried document no longer qualifies once its job is in flight or has succeeded).
"""

import time
import uuid
from collections import Counter

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.management.waves import WaveRun
from documents.upkeep import reocr
from jobs import failures, fairness
from jobs.models import Lane


def default_wave() -> int:
    """The OCR lane's worker threads (WORKER_OCR_PROCESSES x WORKER_OCR_THREADS): a page
    of OCR takes seconds, a document minutes, so a longer queue would only wait."""
    return fairness.lane_threads(Lane.OCR)


class Command(BaseCommand):
    help = (
        "Retry the documents whose current job failed no_text before OCR was turned on "
        "(read with OCR off, or before OCR existed), a wave at a time: each job goes back "
        "to its lane, its text layer is read and its scanned pages go on to the OCR lane. "
        "Refused while INGEST_OCR is off. Run it after the workers restarted with OCR on."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all",
            action="store_true",
            dest="everything",
            help="Also the no_text documents OCR already read and found nothing on (after a "
            "change of INGEST_OCR_LANGUAGES or INGEST_OCR_DPI, or INGEST_OCR=force).",
        )
        parser.add_argument("--owner", metavar="USERNAME", help="Only this user's documents.")
        parser.add_argument(
            "--wave",
            type=int,
            default=None,
            help="At most this many jobs in flight on the OCR lane (anyone's, and this run's "
            "on their way to it) before more are queued (default: the lane's worker threads, "
            "WORKER_OCR_PROCESSES x WORKER_OCR_THREADS).",
        )
        parser.add_argument(
            "--poll",
            type=float,
            default=2.0,
            metavar="SECONDS",
            help="How often to look at the jobs (default: %(default)s).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Print what would be retried; change nothing."
        )

    def handle(
        self,
        *args: object,
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
                "workers, then run manage.py reocr."
            )
        wave = default_wave() if wave is None else wave
        if wave < 1:
            raise CommandError("--wave must be at least 1.")
        scope = reocr.Scope(everything=everything, owner_id=_owner_id(owner))
        survey = reocr.survey(scope)
        self._describe(scope, survey, dry_run)
        if dry_run:
            return
        self.stdout.write(f"waves: at most {wave} jobs in flight on the OCR lane")
        Run(self, scope, wave=wave, poll=poll, total=survey.to_queue).go()

    def _describe(self, scope: reocr.Scope, survey: reocr.Survey, dry_run: bool) -> None:
        self.stdout.write(f"INGEST_OCR: {settings.INGEST_OCR}")
        before = survey.failed - survey.read_by_ocr
        self.stdout.write(
            f"{survey.failed} documents failed no_text: {before} read before OCR was on, "
            f"{survey.read_by_ocr} already read by OCR"
        )
        line = f"{'would queue' if dry_run else 'to queue'}: {survey.to_queue}"
        if survey.read_by_ocr and not scope.everything:
            line += f"; skipped, already read by OCR: {survey.read_by_ocr} (--all takes them)"
        self.stdout.write(line)


class Run(WaveRun):
    """One run's loop: retry while the OCR lane has room, report, stop on Ctrl-C."""

    REPORT_EVERY = 30.0  # seconds between progress lines when nothing changes

    def __init__(
        self, command: Command, scope: reocr.Scope, *, wave: int, poll: float, total: int
    ) -> None:
        self.out, self.err = command.stdout, command.stderr
        self.scope, self.wave, self.poll, self.total = scope, wave, poll, total
        self.queued = 0
        self.pending: set[uuid.UUID] = set()  # jobs this run retried that have not ended
        self.ended: Counter[str] = Counter()  # DONE, OCR_OFF or the error code
        # Documents this run retried or found no longer qualifying: never taken twice (one
        # that fails no_text again qualifies again, with --all).
        self.seen: set[uuid.UUID] = set()
        self.stopping = False
        self.last_line, self.last_time = "", 0.0

    def go(self) -> None:
        with self._ctrl_c():
            self._queue_all()
            self._wait()
        self._summary()
        if off := self.ended[reocr.OCR_OFF]:
            raise CommandError(
                f"{off} retried documents failed no_text again without OCR looking at them: "
                "the workers run with INGEST_OCR=off. Restart them with OCR on, then run "
                "manage.py reocr again."
            )

    def _queue_all(self) -> None:
        while not self._report():
            room = self.wave - reocr.in_flight(self.pending)
            if room > 0:
                ids = reocr.next_candidates(self.scope, limit=room, skip=self.seen)
                if not ids:
                    return
                for document_id in ids:
                    if self.stopping:
                        return
                    job_id = reocr.requeue(document_id, self.scope)
                    self.seen.add(document_id)
                    if job_id is not None:
                        self.queued += 1
                        self.pending.add(job_id)
            self._sleep()

    def _wait(self) -> None:
        """Until the jobs this run retried have ended (Ctrl-C leaves them to the workers)."""
        while not self.stopping and not self._report() and self.pending:
            self._sleep()

    def _update(self) -> None:
        for job_id, ending in reocr.endings(list(self.pending)).items():
            self.pending.discard(job_id)
            self.ended[ending] += 1

    def _counts(self) -> str:
        return (
            f"queued {self.queued} of {self.total}, done {self.ended[reocr.DONE]}, "
            f"failed {reocr.failed_count(self.ended)}, in flight {len(self.pending)}"
        )

    def _report(self) -> bool:
        """Print progress when it changed (or now and then); True when the run must stop:
        the workers read without OCR."""
        self._update()
        line = self._counts()
        now = time.monotonic()
        if line != self.last_line or now - self.last_time > self.REPORT_EVERY:
            self.out.write(line)
            self.last_line, self.last_time = line, now
        if self.ended[reocr.OCR_OFF]:
            self.stopping = True  # go() says why, once the summary is out
        return self.stopping

    def _summary(self) -> None:
        self._update()
        self.out.write(f"finished: {self._counts()}")
        failed = {
            ending: count
            for ending, count in sorted(self.ended.items())
            if ending not in (reocr.DONE, reocr.OCR_OFF)
        }
        if failed:
            by_code = ", ".join(f"{count} {code}" for code, count in failed.items())
            self.out.write(
                f"Failed again: {by_code}. Their owners see why on their pages; the admin's "
                "dead-letter console lists them."
            )
        if self.stopping or self.pending:
            again = "manage.py reocr" + (" --all" if self.scope.everything else "")
            self.out.write(f"Jobs in flight finish on their own; to continue, run: {again}")


def _owner_id(username: str | None) -> int | None:
    if username is None:
        return None
    try:
        return User.objects.get(username=username).pk
    except User.DoesNotExist:
        raise CommandError(f"No user {username!r}.") from None
