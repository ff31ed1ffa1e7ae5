from pathlib import Path

from django.apps import AppConfig
from django.conf import settings


class DocumentsConfig(AppConfig):
    name = "documents"

    def ready(self) -> None:
        # Uploads over FILE_UPLOAD_MAX_MEMORY_SIZE spool there, and Django's own check
        # (files.E001) refuses every command while it is missing. The settings only name
        # it (loading them writes nothing), so each process makes it as Django starts.
        Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
        self._connect_to_jobs()
        from documents import checks  # noqa: F401  (registers the system check)

    def _connect_to_jobs(self) -> None:
        """Documents stand above jobs: what jobs needs of them is handed over here, so
        jobs imports nothing of documents (pyproject.toml's import contracts). The worker
        records what it learns of a document through documents' services, and the
        sweeper's passes look after direct uploads, Idempotency-Key rows, retention and the
        re-embedding that follows a change of the configured embedding."""
        from jobs import sweeper
        from jobs.worker import document_records

        document_records.install("documents.services.processing")
        sweeper.on_each_pass(
            "documents.direct.sweep.every_pass",
            "documents.front_door.idempotency.forget_expired",
            "documents.upkeep.retention.every_pass",
            "documents.upkeep.embedding_change.every_pass",
        )
