"""manage.py prepare_embedding: load the configured embedding model once, before the
processes that use it start (`make run` runs it), so that the `local` model's integer copy
(search/embedding/onnx_prepare.py) is made by one process, not by every one at once."""

import time

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from search.embedding import probe_provider
from search.embedding.signature import current_signature


class Command(BaseCommand):
    help = (
        "Load the configured embedding model and embed one text with it: for the `local` "
        "provider, the first run on a machine also makes its integer copy under "
        "INGEST_DATA_DIR/models/ (a few seconds). Other providers: nothing to prepare."
    )

    def handle(self, *args: object, **options: object) -> None:
        if settings.INGEST_EMBED_PROVIDER != "local":
            self.stdout.write(f"embedding: {current_signature()} (nothing to prepare)")
            return
        started = time.monotonic()
        try:
            probe_provider()
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from exc
        took = time.monotonic() - started
        self.stdout.write(f"embedding: {current_signature()}, model ready in {took:.1f} s")
