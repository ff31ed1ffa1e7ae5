"""OCR's language files must be there before a worker reads a scan: a system check.

With INGEST_OCR on, every language INGEST_OCR_LANGUAGES names needs its file in
INGEST_OCR_TESSDATA. Nothing is downloaded at run time, so a missing one would fail every
scan in the OCR lane; it is found at start instead, by every command that runs the checks
(`migrate`, `rundramatiq`, `make run`), with what to do.
"""

from collections.abc import Sequence

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

from config.common.tessdata import debian_package, missing_languages


@register()
def check_ocr_languages(
    app_configs: Sequence[object] | None = None, **kwargs: object
) -> list[CheckMessage]:
    if settings.INGEST_OCR == "off":
        return []
    missing = missing_languages(settings.INGEST_OCR_LANGUAGES, settings.INGEST_OCR_TESSDATA)
    if not missing:
        return []
    packages = " ".join(debian_package(language) for language in missing)
    return [
        Error(
            f"INGEST_OCR_LANGUAGES names {', '.join(missing)}, but "
            f"{settings.INGEST_OCR_TESSDATA} has no language file for "
            f"{'it' if len(missing) == 1 else 'them'}.",
            hint=f"Run `make ocr` (Debian's {packages}), point INGEST_OCR_TESSDATA at a "
            "directory that has them, or set INGEST_OCR=off.",
            id="search.E002",
        )
    ]
