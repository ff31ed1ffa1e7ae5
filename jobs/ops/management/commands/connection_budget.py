"""manage.py connection_budget: the connections each process line needs, and PgBouncer's
pools, for a number of machines sized as this environment sizes its processes."""

from django.core.management.base import BaseCommand, CommandParser

from jobs.ops import budget


class Command(BaseCommand):
    help = (
        "Print the Postgres connections each process line holds for N web and M worker "
        "machines (sized by WEB_CONCURRENCY, WEB_THREADS, WORKER_<LANE>_PROCESSES and "
        "_THREADS), and the PgBouncer pools that keep the web's apart from the workers'."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--web-hosts", type=int, default=1, metavar="N")
        parser.add_argument("--worker-hosts", type=int, default=1, metavar="M")
        parser.add_argument(
            "--postgres", default="postgres:5432", help="Postgres as PgBouncer reaches it."
        )
        parser.add_argument("--database", default="ingest", help="The database's name.")

    def handle(
        self,
        *args: object,
        web_hosts: int,
        worker_hosts: int,
        postgres: str,
        database: str,
        **options: object,
    ) -> None:
        if web_hosts < 1 or worker_hosts < 1:
            self.stderr.write("--web-hosts and --worker-hosts must be at least 1.")
            raise SystemExit(2)
        found = budget.budget(web_hosts=web_hosts, worker_hosts=worker_hosts)
        self.stdout.write(
            budget.render(
                found,
                web_hosts=web_hosts,
                worker_hosts=worker_hosts,
                postgres=postgres,
                db=database,
            )
        )
