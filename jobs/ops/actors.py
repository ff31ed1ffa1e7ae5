"""The alert sender: one Dramatiq actor on its own queue (`alerts`), which POSTs a message
to INGEST_ALERT_WEBHOOK_URL. jobs/ops/alerts.py decides what to say and when, and sends
here by name; a webhook that is down costs this actor its retries, never a job."""

import json
import logging
import urllib.error
import urllib.request

import dramatiq
from django.conf import settings
from dramatiq.middleware import CurrentMessage

from jobs.ops.alerts import ACTOR_NAME, QUEUE_NAME

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 5
MAX_RETRIES = 5
# Answers worth another try; any other 4xx (a revoked or mistyped webhook, a payload it
# refuses) will not change by retrying.
RETRYABLE_STATUSES = frozenset({408, 425, 429})


class AlertNotDelivered(Exception):
    """The webhook could not be reached or failed: Dramatiq retries the message."""


def post(url: str, text: str) -> None:
    """POST {"text": text} as JSON. Raises AlertNotDelivered when worth retrying; logs and
    returns when the webhook refused the message for good."""
    if not url.startswith(("https://", "http://")):
        log.error("INGEST_ALERT_WEBHOOK_URL is not an http(s) URL; alert not sent")
        return
    request = urllib.request.Request(
        url,
        data=json.dumps({"text": text}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            response.read(1024)
    except urllib.error.HTTPError as exc:
        if exc.code >= 500 or exc.code in RETRYABLE_STATUSES:
            raise AlertNotDelivered(f"the webhook answered HTTP {exc.code}") from exc
        log.error("the alert webhook refused an alert with HTTP %s; not retried", exc.code)
    except OSError as exc:  # URLError, refused, reset, timed out
        raise AlertNotDelivered(f"the webhook could not be reached ({exc})") from exc


# Retried after 10 s, 20 s, 40 s, 80 s and 160 s, each up to twice that (jitter): five to
# ten minutes of outage before Dramatiq gives up and keeps the message in the queue's
# dead-letter set. Priority 0, as the lanes' resumed jobs: the next free thread sends it.
@dramatiq.actor(
    actor_name=ACTOR_NAME,
    queue_name=QUEUE_NAME,
    priority=0,
    max_retries=MAX_RETRIES,
    min_backoff=10_000,
    max_backoff=300_000,
    time_limit=(TIMEOUT_SECONDS + 25) * 1000,
)
def send_alert(text: str) -> None:
    """Deliver one alert. The webhook's URL is read here, not carried in the message: it
    is a secret, and a changed setting applies to alerts still queued."""
    url = settings.INGEST_ALERT_WEBHOOK_URL
    if not url:
        log.info("INGEST_ALERT_WEBHOOK_URL is unset; a queued alert was dropped")
        return
    try:
        post(url, text)
    except AlertNotDelivered as exc:
        message = CurrentMessage.get_current_message()
        tries = (message.options.get("retries", 0) if message else 0) + 1
        log.warning("alert not delivered (try %d of %d): %s", tries, MAX_RETRIES + 1, exc)
        raise
