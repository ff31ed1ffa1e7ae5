"""Where Tesseract's language files are, and which of the wanted ones are missing.

`make ocr` installs Debian's language packs (tesseract-ocr-eng, -deu, -chi-sim); their
files land in one of DEBIAN_DIRECTORIES, by Tesseract's version. Nothing is ever
downloaded at run time: a language whose file is missing is a configuration error that
search/checks.py reports at start.
"""

import os
from pathlib import Path

DEBIAN_DIRECTORIES = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
)


def default_tessdata() -> str:
    """TESSDATA_PREFIX if set, else the first of Debian's directories that exists (else the
    first of them, for the error to name)."""
    prefix = os.environ.get("TESSDATA_PREFIX", "").strip()
    if prefix:
        return prefix
    for directory in DEBIAN_DIRECTORIES:
        if os.path.isdir(directory):
            return directory
    return DEBIAN_DIRECTORIES[0]


def languages(spec: str) -> list[str]:
    """The languages of an INGEST_OCR_LANGUAGES value: "eng+deu" (Tesseract's own way),
    "eng,deu" or "eng deu"."""
    return [name for name in spec.replace(",", "+").replace(" ", "+").split("+") if name]


def missing_languages(spec: str, tessdata: str) -> list[str]:
    """The languages of `spec` that have no language file in `tessdata`."""
    return [
        name for name in languages(spec) if not (Path(tessdata) / f"{name}.traineddata").is_file()
    ]
