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
from search.pipeline.classify import NO_IMAGES_DETAIL, OCR_FOUND_NOTHING

SENTENCES: dict[str, str] = {
    # The file itself (permanent).
    "not_a_pdf": "The file is not a PDF.",
    "encrypted": "The PDF is protected by a password, so its text cannot be read. "
    "Upload a copy without the password as a new version.",
    "corrupt": "The PDF is damaged and its text cannot be read. "
    "Upload a repaired copy as a new version.",
    "checksum_mismatch": "The file that reached the storage is not the one announced: its "
    "SHA-256 differs from the sha256 sent when the direct upload started. Upload it again.",
    "file_missing": "The stored file of this version is gone from the storage, so it cannot "
    "be read. Upload it again as a new version.",
    # no_text's sentence depends on OCR and on when the file was read: NO_TEXT below.
    "no_text": "The PDF has no text layer: it looks scanned, and OCR (reading scanned "
    "pages) is off on this service.",
    "too_many_pages": "The PDF has more pages than this service reads (at most {max_pages}).",
    "too_complex": "Reading the PDF needs more memory or time than this service gives one "
    "document.",
    # Drawing a page (a page image, never a job's ending; said alike should one ever be).
    "page_not_found": "The PDF has no such page.",
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

# no_text, by what its detail says happened (search/pipeline/classify.py writes them) and
# whether OCR is on now (INGEST_OCR). With OCR off, SENTENCES["no_text"] whatever happened.
NO_TEXT = {
    # Read by OCR, and OCR found nothing.
    "ocr_found_nothing": "Neither the PDF's text layer nor OCR found any text in it: its "
    "scanned pages look blank or unreadable.",
    # Read with OCR on, and no page holds an image OCR could read.
    "no_images": "The PDF has no text layer, and none of its pages holds an image that OCR "
    "could read.",
    # Read before OCR was on (the detail says OCR was not enabled, or off): a retry reads it.
    "before_ocr": "The PDF has no text layer: it looks scanned, and it was read before OCR "
    "(reading scanned pages) was turned on here. Retry it to have its pages read by OCR.",
}

FALLBACK = "Processing failed for a reason on our side; the operators can see what."

# Codes that end a job only after its attempts ran out: the sentence says how many.
GAVE_UP = ("retries_exhausted", "timeout", "crashed")


# Failures whose cause is the file's bytes: the same bytes fail the same way, so a retry
# would only spend a worker on them again. A new version (other bytes) is the way out.
# `no_text` only while OCR is off (file_refusal).
FILE_FAILURES = (
    "not_a_pdf",
    "encrypted",
    "corrupt",
    "no_text",
    "checksum_mismatch",
    "file_missing",  # manage.py verify_storage --fix: the stored bytes are gone
)
# The page count and limit in too_many_pages' detail, as both readers write it
# (search/pipeline/reader.py, reader_pdfium.py): "The PDF has 2500 pages; the limit is 2000."
_PAGES = re.compile(r"has (?P<pages>\d+) pages; the limit is (?P<limit>\d+)")


# How the details of a no_text that OCR looked at begin, by NO_TEXT's key (manage.py
# reprocess ocr leaves those out unless told to take them too).
OCR_READ = {
    "ocr_found_nothing": OCR_FOUND_NOTHING.split("{", 1)[0],
    "no_images": NO_IMAGES_DETAIL,
}


def ocr_on() -> bool:
    """Whether the workers read scanned pages by OCR (INGEST_OCR auto or force)."""
    return settings.INGEST_OCR != "off"


def no_text_kind(detail: str) -> str:
    """What a `no_text` failure's detail says happened: a key of NO_TEXT. A detail from
    before OCR existed ("OCR is not enabled"), from INGEST_OCR=off, or unknown is
    "before_ocr": OCR never looked at the file."""
    for kind, start in OCR_READ.items():
        if detail.startswith(start):
            return kind
    return "before_ocr"


def file_refusal(job: Job) -> str | None:
    """Why retrying the failed job would fail the same way because of its file, or None
    when a retry may end otherwise. The one rule for the API's retry (documents.services.
    retry_refusal) and the admin's (jobs.services.retry_jobs).

    `not_a_pdf`, `encrypted` and `corrupt` are the file's own: no setting changes how they
    end (a damaged or locked file stays so). `no_text` is the file against OCR: refused
    while INGEST_OCR is off, retryable while it is on (a file read before OCR was on gets
    its scanned pages read; one OCR read may read otherwise after its languages or
    resolution changed). `too_many_pages` is the file against INGEST_MAX_PAGES: retryable
    once the limit is at least the file's page count, read from the failure's detail.
    Every other failure (the embedding service, workers, time) may end otherwise."""
    code = job.error_code
    if code == "no_text" and ocr_on():
        return None
    if code == "no_text":
        return (
            "It failed because of the file itself (no_text): it has no text layer, and OCR "
            "(reading scanned pages) is off on this service, so retrying would fail the same "
            "way. Upload a copy with a text layer as a new version instead."
        )
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


def sentence(code: str, detail: str = "") -> str:
    """The plain sentence for an error code ("" for none); `detail`, the failure's stored
    detail (a job's `error_detail`, an attempt's `error_message`), tells `no_text`'s
    cases apart."""
    if not code:
        return ""
    if code == "no_text" and ocr_on():
        return NO_TEXT[no_text_kind(detail)]
    text = SENTENCES.get(code, FALLBACK)
    return text.format(max_pages=settings.INGEST_MAX_PAGES)


def job_sentence(job: Job) -> str:
    """What a person reads about the job's error: its code's sentence, and for a job that
    failed after every attempt, how many there were."""
    text = sentence(job.error_code, job.error_detail)
    if text and job.status == JobStatus.FAILED and job.error_code in GAVE_UP:
        plural = "s" if job.attempts != 1 else ""
        return f"Gave up after {job.attempts} attempt{plural}. {text}"
    return text


def public_error(job: Job) -> dict[str, str] | None:
    """`{"code", "detail"}` of the job's error as its owner sees it, or None."""
    if not job.error_code:
        return None
    return {"code": job.error_code, "detail": job_sentence(job)}
