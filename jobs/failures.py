"""What a person is told about a failure: its code and one plain sentence per code.

A job keeps the whole story of how it failed (`error_detail`, each attempt's message and
traceback, the worker that ran it), scrubbed of credentials (jobs.redact). That story
names hosts, database errors, the embedding provider's address and our own code, so it
stays with staff, in the admin. Everyone else (the API, the upload page, its websocket
rows, webhook events) gets the code and the sentence below: a fixed text per code,
written for the person who uploaded the file, saying what happened and, where there is
one, what to do.
"""

import re

from django.conf import settings

from jobs.models import Job, JobStatus

SENTENCES: dict[str, str] = {
    # The file itself (permanent).
    "not_a_pdf": "The file is not a PDF.",
    "encrypted": "The PDF is protected by a password, so its text cannot be read. "
    "Upload a copy without the password as a new version.",
    "corrupt": "The PDF is damaged and its text cannot be read. "
    "Upload a repaired copy as a new version.",
    "no_text": "The PDF has no text layer: it looks scanned, and OCR is not enabled.",
    "too_many_pages": "The PDF has more pages than this service reads (at most {max_pages}).",
    "too_complex": "Reading the PDF needs more memory or time than this service gives one "
    "document.",
    # The embedding service (permanent).
    "embedding_rejected": "The embedding service refused this document's text.",
    "embedding_dimension_mismatch": "The embedding service's vectors do not fit the search "
    "index; the operators have to fix the configuration.",
    # Temporary causes: the job is tried again, up to INGEST_MAX_ATTEMPTS attempts.
    "rate_limited": "The embedding service asked us to slow down.",
    "provider_unavailable": "The embedding service was not available.",
    "timeout": "Processing ran out of time.",
    "extract_timeout": "Reading the PDF took too long on a busy machine.",
    "extractor_crashed": "The PDF reader stopped unexpectedly.",
    "connection": "The connection to the database or the queue was lost.",
    "lease_expired": "The worker processing it stopped answering.",
    "unexpected_error": "Something unexpected went wrong on our side; the operators can see what.",
    # How a job ended.
    "retries_exhausted": "A temporary problem (the embedding service, the database or a "
    "worker) lasted through every attempt. Try again later.",
    "crashed": "Every attempt ended with the worker processing it stopping (killed or out "
    "of memory).",
    "expired": "It waited too long in the queue and was never started. Try again.",
    "superseded": "A newer version was ready first; this result was discarded.",
}

FALLBACK = "Processing failed for a reason on our side; the operators can see what."

# Codes that end a job only after its attempts ran out: the sentence says how many.
GAVE_UP = ("retries_exhausted", "timeout", "crashed")


# Failures whose cause is the file's bytes: the same bytes fail the same way, so a retry
# would only spend a worker on them again. A new version (other bytes) is the way out.
FILE_FAILURES = ("not_a_pdf", "encrypted", "corrupt", "no_text")
# The page count and limit in too_many_pages' detail, as both readers write it
# (search/pipeline/reader.py, reader_pdfium.py): "The PDF has 2500 pages; the limit is 2000."
_PAGES = re.compile(r"has (?P<pages>\d+) pages; the limit is (?P<limit>\d+)")


def file_refusal(job: Job) -> str | None:
    """Why retrying the failed job would fail the same way because of its file, or None
    when a retry may end otherwise. The one rule for the API's retry (documents.services.
    retry_refusal) and the admin's (jobs.services.retry_jobs).

    `not_a_pdf`, `encrypted`, `corrupt` and `no_text` are the file's own: no setting
    changes how they end (there is no OCR to switch on, and a damaged or locked file stays
    so). `too_many_pages` is the file against INGEST_MAX_PAGES: retryable once the limit
    is at least the file's page count, read from the failure's detail. Every other
    failure (the embedding service, workers, time) may end otherwise."""
    code = job.error_code
    if code in FILE_FAILURES:
        return (
            f"It failed because of the file itself ({code}); retrying the same file would "
            "fail the same way. Upload a corrected copy as a new version instead."
        )
    if code == "too_many_pages":
        limit = settings.INGEST_MAX_PAGES
        found = _PAGES.search(job.error_detail)
        if found is None:  # no count on record: nothing says the file would fit now
            return f"It has more pages than the limit of {limit}; retrying would fail again."
        if int(found["pages"]) > limit:
            return (
                f"It has {found['pages']} pages and the limit is {limit}; retrying would "
                "fail the same way."
            )
    return None


def sentence(code: str) -> str:
    """The plain sentence for an error code ("" for none)."""
    if not code:
        return ""
    text = SENTENCES.get(code, FALLBACK)
    return text.format(max_pages=settings.INGEST_MAX_PAGES)


def job_sentence(job: Job) -> str:
    """What a person reads about the job's error: its code's sentence, and for a job that
    failed after every attempt, how many there were."""
    text = sentence(job.error_code)
    if text and job.status == JobStatus.FAILED and job.error_code in GAVE_UP:
        plural = "s" if job.attempts != 1 else ""
        return f"Gave up after {job.attempts} attempt{plural}. {text}"
    return text


def public_error(job: Job) -> dict[str, str] | None:
    """`{"code", "detail"}` of the job's error as its owner sees it, or None."""
    if not job.error_code:
        return None
    return {"code": job.error_code, "detail": job_sentence(job)}
