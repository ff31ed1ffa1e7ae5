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
