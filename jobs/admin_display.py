"""How the job admin shows things: status badges, preformatted text, short ages."""

from datetime import timedelta

from django.utils.html import format_html
from django.utils.safestring import SafeString

from jobs.models import JobStatus
from jobs.redact import scrub

STATUS_COLOURS: dict[str, str] = {
    JobStatus.QUEUED: "#6c757d",
    JobStatus.PROCESSING: "#0d6efd",
    JobStatus.SUCCEEDED: "#198754",
    JobStatus.FAILED: "#dc3545",
    JobStatus.CANCELLED: "#343a40",
}

# Tracebacks and error details are long single-spaced text: wrap them instead of letting
# one line widen the whole page.
PRE_STYLE = "white-space: pre-wrap; max-width: 80em; margin: 0"


def status_badge(status: str) -> SafeString:
    """A job status as a coloured label (white on colour reads in light and dark themes)."""
    colour = STATUS_COLOURS.get(status, "#6c757d")
    return format_html(
        '<span style="background: {}; color: #fff; padding: 1px 7px; border-radius: 8px">{}</span>',
        colour,
        status,
    )


def preformatted(text: str) -> SafeString | None:
    """Text kept as written (tracebacks), escaped: it may quote a file or a provider.
    Scrubbed of credentials again, for rows stored before jobs.redact existed."""
    return format_html('<pre style="{}">{}</pre>', PRE_STYLE, scrub(text)) if text else None


def short_age(delta: timedelta) -> str:
    """'45 s', '3 min', '5 h', '2 d': one unit is enough to scan a column by eye."""
    seconds = int(delta.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{max(seconds, 0)} s"


def plural(count: int, singular: str, several: str) -> str:
    return singular if count == 1 else several
