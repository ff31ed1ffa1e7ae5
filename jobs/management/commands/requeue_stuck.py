"""manage.py requeue_stuck: send again queued jobs whose message was lost or never sent."""

import time

from django.core.management.base import BaseCommand, CommandParser

from jobs.sweeper import requeue_stuck


class Command(BaseCommand):
    help = "Re-send queued jobs that were never sent or not picked up within a grace period."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=float,
            default=900,
            metavar="SECONDS",
            help="Re-send jobs sent this long ago and still queued (default 900).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Show what would be sent.")
        parser.add_argument(
            "--loop",
            type=float,
            default=0,
            metavar="SECONDS",
            help="Run forever, sweeping every SECONDS.",
        )

    def handle(
        self, *args: object, older_than: float, dry_run: bool, loop: float, **options: object
    ) -> None:
        while True:
            report = requeue_stuck(older_than=older_than, dry_run=dry_run)
            verb = "would re-send" if dry_run else "re-sent"
            for job_id in report.resent:
                self.stdout.write(f"{verb} {job_id}")
            for job_id in report.failed_to_send:
                self.stderr.write(f"could not send {job_id}: broker unavailable")
            summary = f"{verb} {len(report.resent)} queued jobs"
            if report.failed_to_send:
                summary += f", {len(report.failed_to_send)} could not be sent"
            self.stdout.write(summary)
            if not loop:
                return
            time.sleep(loop)
