"""What a file's name becomes when it is shown: the one rule for uploads, new versions and
direct uploads alike."""

import re
import unicodedata

_UNSAFE = re.compile(r"[\\/]")
_SPACES = re.compile(r"\s+")
MAX_NAME = 200


def display_name(raw: str | None) -> str:
    """A file name fit to show: no directories, no control characters, at most 200
    characters with the extension kept. It is never used to build a storage key."""
    name = unicodedata.normalize("NFC", raw or "")
    name = _UNSAFE.split(name)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = _SPACES.sub(" ", name).strip(" .")
    if len(name) > MAX_NAME:
        stem, dot, ext = name.rpartition(".")
        if dot and 0 < len(ext) <= 10:
            name = stem[: MAX_NAME - len(ext) - 1].rstrip() + "." + ext
        else:
            name = name[:MAX_NAME]
    return name or "upload.pdf"
