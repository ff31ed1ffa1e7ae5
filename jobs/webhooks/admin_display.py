"""How the webhooks admin shows things: delivery status badges, latencies, when the next
attempt is due, payloads and answers as text."""

import json
from datetime import datetime

from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from config.common import humanize
from jobs.admin.display import preformatted
from jobs.webhooks.models import DeliveryStatus

SECRET_SHOWN = 10  # "whsec_" and four characters: enough to tell two secrets apart
EVENT_ID_SHOWN = 12  # "msg_" and eight hex digits, as the job admin cuts job ids
URL_SHOWN = 32
# Styles by class, in static/css/admin.css: the Content-Security-Policy allows no style
# attributes.


def status_badge(status: str) -> SafeString:
    """A delivery status as a coloured label, as the job admin shows job statuses."""
    return format_html('<span class="status-badge status-{}">{}</span>', status, status)


def shortened(text: str, length: int) -> SafeString:
    """The start of a long text, whole in its tooltip (and on the detail page)."""
    if len(text) <= length:
        return format_html('<span class="nowrap">{}</span>', text)
    return format_html('<span class="nowrap" title="{}">{}…</span>', text, text[: length - 1])


def ago(when: datetime | None) -> SafeString | str:
    """'about 7 minutes ago', the exact time in its tooltip; '-' when it has not happened."""
    if when is None:
        return "-"
    seconds = max(0.0, (timezone.now() - when).total_seconds())
    return format_html(
        '<span class="nowrap" title="{}">{} ago</span>', exact(when), humanize.duration(seconds)
    )


def exact(when: datetime) -> str:
    """'2026-11-30 15:51:19 UTC': to the second, in the site's time zone."""
    return timezone.localtime(when).strftime("%Y-%m-%d %H:%M:%S %Z")


def timeline(moments: list[tuple[str, datetime | None]]) -> SafeString:
    """One line a moment, to the second and how long ago or ahead: '-' when none."""
    now = timezone.now()

    def line(when: datetime | None) -> str:
        if when is None:
            return "-"
        seconds = (when - now).total_seconds()
        relative = (
            f"in {humanize.duration(seconds)}"
            if seconds > 0
            else f"{humanize.duration(-seconds)} ago"
        )
        return f"{exact(when)} ({relative})"

    return format_html(
        '<table class="timeline">{}</table>',
        format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td></tr>",
            ((name, line(when)) for name, when in moments),
        ),
    )


def latency(milliseconds: int) -> str:
    """'85 ms' under a second, then as config.common.humanize writes durations ('2.5 s')."""
    if milliseconds < 1000:
        return f"{milliseconds} ms"
    return humanize.duration(milliseconds / 1000, decimals=1)


def next_attempt(status: str, when: datetime | None) -> SafeString | str:
    """'in about 4 minutes', 'due now', or '-' when nothing more will be tried."""
    if status != DeliveryStatus.PENDING:
        return "-"
    seconds = (when - timezone.now()).total_seconds() if when else 0
    text = f"in {humanize.duration(seconds)}" if seconds > 0 else "due now"
    return format_html('<span class="nowrap">{}</span>', text)


def masked_secret(secret: str) -> str:
    """Only the start of a secret: operators tell endpoints apart, never sign as them."""
    return f"{secret[:SECRET_SHOWN]}…" if secret else ""


def payload_block(payload: object) -> SafeString:
    """The event's body, indented, escaped (it quotes a user's file name)."""
    return format_html(
        '<pre class="wrapped">{}</pre>',
        # Keys sorted, as signing.body sends them: what a receiver sees, spaced out.
        json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=True),
    )


def answer_block(text: str) -> SafeString | str:
    """The first 1 KB of a receiver's answer, folded under its first line."""
    if not text:
        return "-"
    first = text.strip().splitlines()[0] if text.strip() else "(blank)"
    summary = first if len(first) <= 60 else f"{first[:59]}…"
    return format_html(
        "<details><summary>{}</summary>{}</details>", summary, preformatted(text) or ""
    )
