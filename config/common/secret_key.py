"""The secret key kept in the data directory when DJANGO_SECRET_KEY is unset.

Settings only read it (`stored`): loading them writes nothing. `make run` writes it first
(`manage.py embedded start` calls `ensure`), so every process it starts reads the same key
and sessions survive restarts. It is written whole and synced to disk before it is linked
into place, so a power cut never leaves an empty or partial key behind the name.

To rotate it: stop every process, delete `var/secret_key` (or set a new DJANGO_SECRET_KEY),
start again. Everyone is signed out (sessions are signed with it) and password-reset links
made before stop working; API tokens and webhook secrets are unaffected.
"""

import contextlib
import os
import secrets
from pathlib import Path

FILE_NAME = "secret_key"


def stored(data_dir: Path) -> str | None:
    """The key kept in data_dir, or None when there is none yet."""
    try:
        return (data_dir / FILE_NAME).read_text().strip() or None
    except FileNotFoundError:
        return None


def ensure(data_dir: Path) -> str:
    """The key kept in data_dir, written first when there is none: whole, to a file that
    is private (0600) from its creation, then linked into place. The link fails when
    another process got there first, so processes that start at once all read one key,
    and none reads a half-written one."""
    path = data_dir / FILE_NAME
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        draft = data_dir / f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(8)}"
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_urlsafe(50))
                file.flush()
                os.fsync(file.fileno())  # on disk before any name points at it
            with contextlib.suppress(FileExistsError):  # another process's key: keep it
                os.link(draft, path)
        finally:
            draft.unlink()
        _sync_directory(data_dir)  # the link itself survives a crash too
    return path.read_text().strip()


def _sync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
