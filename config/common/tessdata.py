"""Where Tesseract's language files are, and which of the wanted ones are missing.

`make ocr` installs Debian's language packs (tesseract-ocr-eng, -deu, -chi-sim); their
files land in one of DEBIAN_DIRECTORIES, by Tesseract's version. Nothing is ever
downloaded at run time: a language whose file is missing is a configuration error that
search/checks.py reports at start.
"""

import os
import sys
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


def debian_package(language: str) -> str:
    """Debian's package with `language`'s file: chi_sim is in tesseract-ocr-chi-sim."""
    return "tesseract-ocr-" + language.lower().replace("_", "-")


def main(argv: list[str]) -> int:
    """`python -m config.common.tessdata --missing LANGUAGES`: the Debian packages that would
    bring the languages missing from INGEST_OCR_TESSDATA (or the default), one per line."""
    if len(argv) != 3 or argv[1] != "--missing":
        print("usage: python -m config.common.tessdata --missing eng+deu", file=sys.stderr)
        return 2
    tessdata = os.environ.get("INGEST_OCR_TESSDATA", "").strip() or default_tessdata()
    for language in missing_languages(argv[2], tessdata):
        print(debian_package(language))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
