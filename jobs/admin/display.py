"""How the job admin shows things: status badges, preformatted text, short ages and
times, and what a bulk retry did."""

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from jobs.redact import scrub
from jobs.services import REPLACED, Retried

# The admin's styles are in static/css/admin.css (templates/admin/base_site.html links it):
# the Content-Security-Policy allows no style attributes.


def status_badge(status: str) -> SafeString:
    """A job status as a coloured label (white on colour reads in light and dark themes):
    the colour is its class's, `status-<status>`."""
    return format_html('<span class="status-badge status-{}">{}</span>', status, status)


def preformatted(text: str) -> SafeString | None:
    """Text kept as written (tracebacks), escaped: it may quote a file or a provider.
    Scrubbed of credentials again, for rows stored before jobs.redact existed."""
    return format_html('<pre class="wrapped">{}</pre>', scrub(text)) if text else None


def short_age(delta: timedelta) -> str:
    """'45 s', '3 min', '5 h', '2 d': one unit is enough to scan a column by eye."""
    seconds = int(delta.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{max(seconds, 0)} s"


def plural(count: int, singular: str, several: str) -> str:
    return singular if count == 1 else several


def short_time(moment: datetime) -> SafeString:
    """'2 Dec 14:05' (this year) or '2 Dec 2025' in the site's time zone, the whole
    timestamp on hover: a list column that fits beside the others at 1440 px."""
    local = timezone.localtime(moment)
    text = f"{local.day} {local:%b %H:%M}"
    if local.year != timezone.localtime().year:
        text = f"{local.day} {local:%b %Y}"
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        moment.isoformat(),
        f"{local:%Y-%m-%d %H:%M:%S %Z}",
        text,
    )


def breakable(code: str) -> SafeString:
    """An error code that may wrap after its underscores (embedding_<wbr>rejected)."""
    return format_html_join(mark_safe("_<wbr>"), "{}", ((part,) for part in code.split("_")))


def left_alone(left: int, eligible: str) -> str:
    """'2 were not failed or stale and were left alone'."""
    was = plural(left, "was", "were")
    return f"{left} {was} not {eligible} and {was} left alone"


def retry_report(retried: Retried, *, selected: int) -> tuple[str, bool]:
    """What a bulk retry did, for the admin's message, and whether it did all it was asked:
    'Retried 16 jobs; skipped 4 that failed because of the file itself (2 encrypted,
    1 corrupt, 1 no_text): ...; 2 were not failed or stale and were left alone.'"""
    done = len(retried.requeued)
    parts = [f"Retried {done} {plural(done, 'job', 'jobs')}"]
    of_file = {code: n for code, n in sorted(retried.skipped.items()) if code != REPLACED}
    if of_file:
        by_code = ", ".join(f"{n} {code}" for code, n in of_file.items())
        parts.append(
            f"skipped {sum(of_file.values())} that failed because of the file itself "
            f"({by_code}): the same file fails the same way, so its owner needs to upload a "
            "new version (once a stored file is repaired, use “Retry selected jobs, "
            "failures of the file too”)"
        )
    replaced = retried.skipped.get(REPLACED, 0)
    if replaced:
        parts.append(
            f"skipped {replaced} replaced by a newer job of {plural(replaced, 'its', 'their')} "
            "document (a retry or a new version)"
        )
    left = selected - done - sum(retried.skipped.values())
    if left:
        parts.append(left_alone(left, "failed or stale"))
    return "; ".join(parts) + ".", len(parts) == 1
