"""What the worker records of a job's document, which only the documents app writes: the
checked hash of bytes no web process read, the page count, what the file says of itself
(an e-mail's headers), its attachments as documents of their own, the lock that orders two
versions finishing at once, and the version search serves. The documents app installs
its services here when it is ready (documents/apps.py), so the worker imports nothing of
documents and documents stays the one writer of its rows."""

import importlib
import uuid
from pathlib import Path
from typing import Protocol

from search.pipeline.page import Attachment


class DocumentRecords(Protocol):
    def check_sha256(self, *, document_id: uuid.UUID, path: Path) -> str | None: ...

    def record_page_count(
        self, *, document_id: uuid.UUID, version: int, pages: int | None
    ) -> None: ...

    def record_what_it_says(
        self, *, document_id: uuid.UUID, version: int, said: dict[str, str]
    ) -> None: ...

    def add_attachments(
        self, *, document_id: uuid.UUID, version: int, attachments: list[Attachment]
    ) -> int: ...

    def lock_for_completion(self, *, document_id: uuid.UUID) -> int | None: ...

    def make_ready(self, *, document_id: uuid.UUID, version: int, embed_model: str) -> None: ...


_installed: str | None = None


def install(module: str) -> None:
    """The dotted path of the module that implements DocumentRecords, imported when a job
    first needs it (a process that runs no job loads none of it)."""
    global _installed
    _installed = module


def records() -> DocumentRecords:
    """The installed records; a process without the documents app cannot run jobs."""
    if _installed is None:
        raise RuntimeError("No document records installed: is `documents` in INSTALLED_APPS?")
    found: DocumentRecords = importlib.import_module(_installed)
    return found
