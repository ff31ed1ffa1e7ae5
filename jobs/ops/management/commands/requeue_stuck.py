"""manage.py requeue_stuck: re-send lost messages and take back jobs whose worker died."""

import time

from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, connection

from jobs.sweeper import SweepReport, requeue_stuck, run_each_pass


class Command(BaseCommand):
    help = (
        "Re-send queued jobs never sent or not picked up within a grace period, and return "
        "to the queue processing jobs whose lease expired."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=float,
            default=None,
            metavar="SECONDS",
            help="Re-send queued jobs due this long ago and not picked up "
            "(default INGEST_REQUEUE_GRACE_SECONDS).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Show what would be done.")
        parser.add_argument(
            "--loop", type=float, default=0, metavar="SECONDS", help="Sweep every SECONDS, forever."
        )

    def handle(
        self, *args: object, older_than: float | None, dry_run: bool, loop: float, **options: object
    ) -> None:
        self.looping = bool(loop)
        if not loop:
            self._sweep(older_than, dry_run)
            return
        while True:
            try:
                self._sweep(older_than, dry_run)
            except DatabaseError as exc:
                # A restart or failover: the next pass reconnects. Exiting would leave
                # recovery to whatever supervises this process, if anything does.
                self.stderr.write(f"sweep skipped, database unavailable: {exc}".strip())
                connection.close()
            time.sleep(loop)

    def _sweep(self, older_than: float | None, dry_run: bool) -> None:
        self._report(requeue_stuck(older_than=older_than, dry_run=dry_run), dry_run)
        if not dry_run:
            run_each_pass()  # the ops dashboard's history, the queue-age alert, upkeep

    def _report(self, report: SweepReport, dry_run: bool) -> None:
        would = "would " if dry_run else ""
        for job_id in report.reclaimed:
            self.stdout.write(f"{would}take back {job_id} (lease expired)")
        for job_id in report.crashed:
            self.stdout.write(f"failed {job_id} as crashed (out of attempts)")
        for job_id in report.resent:
            self.stdout.write(f"{would}re-send {job_id}")
        for job_id in report.failed_to_send:
            self.stderr.write(f"could not send {job_id}: broker unavailable")
        summary = (
            f"{would}re-send {len(report.resent)} queued jobs, {would}take back "
            f"{len(report.reclaimed)} stale, {len(report.crashed)} crashed"
        )
        if report.failed_to_send:
            summary += f", {len(report.failed_to_send)} could not be sent"
        idle = not (report.resent or report.reclaimed or report.crashed or report.failed_to_send)
        if not (idle and self.looping):  # a looping sweeper says nothing when nothing happened
            self.stdout.write(summary)
