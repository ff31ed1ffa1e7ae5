"""manage.py calibrate_search_floor: measure the floor of the configured embedding on the
chunks the database holds, and keep it for searches (search/retrieval/floors.py,
search/retrieval/calibrate.py)."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from search.pipeline.errors import PipelineError
from search.retrieval import calibrate, floors


class Command(BaseCommand):
    help = (
        "Measure how similar unrelated text is to the stored chunks with the configured "
        "embedding (nonsense words, and real words no document holds), and keep the floor "
        "just over the highest: a result found by its vector alone must be more similar "
        "than that. Run it once the database holds documents embedded by the provider and "
        "model in use, and again after changing them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--nonsense", type=int, default=100, help="Nonsense queries (default: %(default)s)."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Measure and print; keep nothing."
        )

    def handle(self, *args: object, **options: object) -> None:
        if calibrate.ready_chunks() == 0:
            raise CommandError(
                "No document is ready with the configured embedding yet: there is nothing to "
                "measure against."
            )
        queries = calibrate.default_queries(nonsense_count=int(str(options["nonsense"])))
        self.stdout.write(f"Embedding {len(queries)} queries that can match nothing…")
        try:
            measurement = calibrate.measure(queries)
        except PipelineError as exc:
            raise CommandError(f"The embedding provider failed: {exc.detail}") from exc
        highest = "none" if measurement.highest is None else f"{measurement.highest:.3f}"
        gate = " (the vectors share a word with the query or count not)"
        self.stdout.write(
            f"{measurement.signature}: {measurement.queries} queries against "
            f"{measurement.chunks:,} ready chunks; highest similarity {highest}"
            f"{gate if floors.needs_shared_word() else ''}; floor {measurement.floor:.2f}."
        )
        if options["dry_run"]:
            return
        calibrate.save(measurement)
        self.stdout.write(self.style.SUCCESS("Kept: searches use it from now on."))
