"""manage.py cleanup_orphans [--dry-run] [--older-than SECONDS]: delete stored files that
no document references (left behind by uploads whose transaction failed)."""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.common import humanize
from documents.upkeep.orphans import DEFAULT_MIN_AGE, CleanupReport, Orphan, cleanup_orphans


class Command(BaseCommand):
    help = (
        "Find files under documents/ in the default storage that no document references "
        "and delete them. Files younger than --older-than are left alone: their upload "
        "may still be committing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="List the orphans; delete nothing."
        )
        add_older_than(parser)

    def handle(self, *args: object, dry_run: bool, older_than: int, **options: object) -> None:
        report = cleanup_orphans(
            min_age=min_age(older_than), dry_run=dry_run, on_orphan=self._print
        )
        self.stdout.write(summary(report, dry_run=dry_run))

    def _print(self, orphan: Orphan) -> None:
        self.stdout.write(orphan.key)


def add_older_than(parser: CommandParser) -> None:
    """`--older-than SECONDS`: files younger are left alone (their upload may still be
    committing). This command's and verify_storage's."""
    parser.add_argument(
        "--older-than",
        type=int,
        default=int(DEFAULT_MIN_AGE.total_seconds()),
        metavar="SECONDS",
        help="Only files last modified more than this long ago (default: %(default)s).",
    )


def min_age(older_than: int) -> timedelta:
    if older_than < 0:
        raise CommandError("--older-than must be 0 or more seconds")
    return timedelta(seconds=older_than)


def summary(report: CleanupReport, *, dry_run: bool) -> str:
    """One line: '3 orphans, 1.2 MB, deleted' (or 'would delete' on a dry run)."""
    noun = "orphan" if report.found == 1 else "orphans"
    outcome = "would delete" if dry_run else "deleted"
    if report.found == 0:
        outcome = "nothing to delete"
    return f"{report.found} {noun}, {humanize.size(report.total_bytes)}, {outcome}"
