"""manage.py verify_storage [--fix] [--older-than SECONDS]: the database against the
storage, both ways (documents/upkeep/verify.py)."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.common import humanize
from documents.management.commands.cleanup_orphans import add_older_than, min_age
from documents.upkeep.verify import Found, Report, verify


class Command(BaseCommand):
    help = (
        "Compare the stored files under documents/ with the rows that name them, one account "
        "at a time: files no document, job or pending direct upload names (orphans), and "
        "rows whose file is not stored (missing). Reports each; with --fix deletes the "
        "orphans and ends the queued jobs of missing files as file_missing. Files younger "
        "than --older-than are left alone: their upload may still be committing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--fix",
            action="store_true",
            help="Delete the orphans; fail the queued jobs whose file is missing.",
        )
        add_older_than(parser)

    def handle(self, *args: object, fix: bool, older_than: int, **options: object) -> None:
        report = verify(fix=fix, min_age=min_age(older_than), on_found=self._print)
        self.stdout.write(summary(report, fixed=fix))
        if (report.orphans or report.missing) and not fix:
            raise CommandError("the storage and the database disagree; --fix repairs it")

    def _print(self, found: Found) -> None:
        if found.kind == "orphan":
            self.stdout.write(f"orphan  {found.name} ({humanize.size(found.size)}): no row")
        else:
            self.stdout.write(f"missing {found.name}: document {found.document_id}")


def summary(report: Report, *, fixed: bool) -> str:
    """One line: what was compared, what disagreed, and what --fix did."""
    line = (
        f"{report.accounts} accounts, {report.stored} stored files: "
        f"{len(report.orphans)} orphans "
        f"({humanize.size(sum(found.size for found in report.orphans))}), "
        f"{len(report.missing)} missing"
    )
    if fixed:
        line += f"; deleted {report.deleted}, failed {report.failed_jobs} queued jobs"
    return line
