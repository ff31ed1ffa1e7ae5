"""The checks a ZIP-based file (Office Open XML, OpenDocument) passes before any library
parses it: that it is a ZIP archive at all, and that unpacking it stays within what a
reader may spend.

The sizes are what the archive's central directory says of each entry, read without
unpacking anything. A library that unpacks an entry checks its CRC and its size against
the directory, so an entry that lies about its size fails there instead of growing.
"""

from __future__ import annotations

import zipfile
from typing import BinaryIO

from search.pipeline.errors import Corrupt, TooComplex

MAX_ENTRIES = 10_000
MAX_TOTAL_BYTES = 512 * 1024 * 1024
# An entry that unpacks to more than this, at more than BOMB_RATIO times its packed size,
# is a decompression bomb: no real document's part is that large and that repetitive.
BOMB_RATIO = 200
BOMB_MIN_BYTES = 16 * 1024 * 1024


def open_checked(fp: BinaryIO, said: str) -> zipfile.ZipFile:
    """The archive in `fp`, checked; `said` names the file for a person ("Word document").

    Raises Corrupt for a file that is no readable ZIP archive, TooComplex for one that
    would unpack to more than a reader may hold."""
    try:
        archive = zipfile.ZipFile(fp)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as error:
        raise Corrupt(
            f"This {said} is damaged: it is not a readable ZIP archive ({error})."
        ) from error
    try:
        check(archive.infolist(), said)
    except TooComplex:
        archive.close()
        raise
    return archive


def check(entries: list[zipfile.ZipInfo], said: str) -> None:
    if len(entries) > MAX_ENTRIES:
        raise TooComplex(
            f"This {said} holds {len(entries):,} files inside it, more than the "
            f"{MAX_ENTRIES:,} a document may hold."
        )
    total = sum(entry.file_size for entry in entries)
    if total > MAX_TOTAL_BYTES:
        raise TooComplex(
            f"This {said} would unpack to {total // 2**20:,} MiB, more than the "
            f"{MAX_TOTAL_BYTES // 2**20} MiB a document may: it looks like a decompression "
            "bomb, a small file built to grow huge when opened."
        )
    for entry in entries:
        if entry.file_size > BOMB_MIN_BYTES and entry.file_size > BOMB_RATIO * max(
            entry.compress_size, 1
        ):
            raise TooComplex(
                f"This {said} is a decompression bomb: its part {entry.filename!r} is "
                f"{entry.compress_size:,} bytes packed and would grow to "
                f"{entry.file_size // 2**20:,} MiB when opened."
            )
