"""Middleware: what became of each upload, and how long its answer took (config.common.metrics).

Read from the answer the API gives, in one place, whatever decided it (the throttle, the
admission checks, the streaming handler's limits, the view):

- a 202 counts each file of its `results`: `accepted`, `duplicate`, or `rejected` with
  the file's error code; its time from the request's arrival goes to
  ingest_upload_ack_seconds;
- a refusal with per-file results (every file rejected) counts those files the same way;
- any other refusal counts once, its files unread: 429 is `throttled` (code `throttled`
  or `too_many_in_flight`), 503 `backlog_full` is `backlog_full`, anything else
  `rejected` with the answer's code.
"""

import json
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from config.common import metrics

UPLOAD_URLS = {"document-list", "document-versions"}


def _is_upload(request: HttpRequest) -> bool:
    match = request.resolver_match
    return request.method == "POST" and match is not None and match.url_name in UPLOAD_URLS


def _count_results(results: list[dict]) -> None:
    for result in results:
        if result.get("status") == "rejected":
            metrics.count_upload("rejected", result.get("error", {}).get("code", ""))
        else:
            metrics.count_upload("duplicate" if result.get("duplicate") else "accepted")


def _count_refusal(status: int, body: dict) -> None:
    code = str(body.get("code", "")) or str(status)
    if status == 429:
        metrics.count_upload("throttled", code)
    elif code == "backlog_full":
        metrics.count_upload("backlog_full", code)
    else:
        metrics.count_upload("rejected", code)


def _body(response: HttpResponse) -> dict:
    """DRF's answer as data; a plain JSON answer (the database-unavailable 503) parsed."""
    body = getattr(response, "data", None)
    if body is None and response.get("Content-Type", "").startswith("application/json"):
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
    return body if isinstance(body, dict) else {}


def count_uploads(request: HttpRequest, response: HttpResponse, seconds: float) -> None:
    body = _body(response)
    if response.status_code == 202:
        metrics.UPLOAD_ACK.observe(seconds)
    if "results" in body:
        _count_results(body["results"])
    elif "filename" in body and response.status_code == 202:  # a new version's answer
        _count_results([body])
    else:
        _count_refusal(response.status_code, body)


class UploadMetrics:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        if _is_upload(request):
            count_uploads(request, response, time.perf_counter() - started)
        return response
