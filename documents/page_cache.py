"""Drawn pages kept on this host's disk, so a page is drawn once, not once per look.

A file per image, `PAGE_IMAGE_CACHE_DIR/<document>/<job>-<page>-<width>.png`: the web
processes of a host share them, and they outlive a restart. Each is written whole
(a temporary file renamed), so a reader sees a whole image or none. The job that made the
version is in the name, so a version read again is drawn again. Reading one touches it;
past INGEST_PAGE_IMAGE_CACHE_MB in all, the least recently used go first (looked at after
every sixteenth of the budget written by this process). A document's deletion removes
its directory on the host that deleted it (documents/services/deletion.py); another
host's copies can no longer be asked for (the view finds the document and its job
first) and age out as the least recently used.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import threading
import uuid
from pathlib import Path

from django.conf import settings

log = logging.getLogger(__name__)

KEEP_AFTER_TRIM = 0.9  # of the budget: a trim makes room for more than one image
_lock = threading.Lock()
_written = 0  # bytes this process has written since it last trimmed


def _root() -> Path:
    return Path(settings.PAGE_IMAGE_CACHE_DIR)


def _path(document_id: uuid.UUID, name: str) -> Path:
    return _root() / str(document_id) / f"{name}.png"


def get(document_id: uuid.UUID, name: str) -> bytes | None:
    """The image kept as `name` for the document, or None."""
    path = _path(document_id, name)
    try:
        image = path.read_bytes()
        os.utime(path)  # used: the last to go
    except FileNotFoundError:  # never kept, or trimmed meanwhile
        return None
    return image


def put(document_id: uuid.UUID, name: str, image: bytes) -> None:
    """Keep `image` as `name` for the document (nothing with a budget of 0). A disk that
    refuses is logged, not raised: the image was drawn, and is answered anyway."""
    budget = _budget()
    if not budget:
        return
    path = _path(document_id, name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as out:
            out.write(image)
        os.replace(out.name, path)
    except OSError:
        log.warning("could not keep a page image at %s", path, exc_info=True)
        return
    global _written
    with _lock:
        _written += len(image)
        due = _written >= budget / 16
        if due:
            _written = 0
    if due:
        trim(budget)


def forget(document_id: uuid.UUID) -> None:
    """Remove every image kept for the document."""
    shutil.rmtree(_root() / str(document_id), ignore_errors=True)


def trim(budget: int) -> int:
    """Remove the least recently used images until those left take at most
    KEEP_AFTER_TRIM of `budget` bytes, and the directories left empty; the bytes kept."""
    kept: list[tuple[float, int, str]] = []
    try:
        directories = list(os.scandir(_root()))
    except FileNotFoundError:
        return 0
    for directory in directories:
        with contextlib.suppress(OSError):  # removed meanwhile
            for entry in os.scandir(directory.path):
                with contextlib.suppress(OSError):
                    seen = entry.stat()
                    kept.append((seen.st_mtime, seen.st_size, entry.path))
    total = sum(size for _, size, _ in kept)
    kept.sort()
    for _, size, path in kept:
        if total <= budget * KEEP_AFTER_TRIM:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
        total -= size
    for directory in directories:
        with contextlib.suppress(OSError):  # not empty, or gone
            os.rmdir(directory.path)
    return total


def _budget() -> int:
    return settings.INGEST_PAGE_IMAGE_CACHE_MB * 1024 * 1024
