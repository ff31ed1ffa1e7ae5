"""OpenAPI descriptions of direct uploads (documents/direct/api.py)."""

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema

from documents.api.docs import IDEMPOTENCY_KEY
from documents.api.serializers import RefusalOut
from documents.direct.serializers import CompletedOut, DirectUploadIn, DirectUploadOut

_UPLOAD = "6a0f3c2e-5b1d-4e8a-9c7f-2d4e6b8a0c13"
_JOB = "9b1e4c77-2d3a-4f0e-8c51-6a7d2e9f0b34"
_RETRY_AFTER = "Seconds to wait, from the measured rate at which jobs finish (Retry-After header)."

STARTED = OpenApiExample(
    "One form upload",
    status_codes=["201"],
    response_only=True,
    value={
        "upload_id": _UPLOAD,
        "expires_at": "2026-12-04T21:15:00+00:00",
        "complete_url": f"https://ingest.example.com/api/uploads/{_UPLOAD}/complete/",
        "method": "POST",
        "url": "https://uploads.s3.eu-central-1.amazonaws.com/",
        "fields": {
            "Content-Type": "application/pdf",
            "key": "documents/7/2b7c9e1a-.../v1.pdf",
            "x-amz-algorithm": "AWS4-HMAC-SHA256",
            "x-amz-credential": "AKIA.../20261204/eu-central-1/s3/aws4_request",
            "x-amz-date": "20261204T210000Z",
            "policy": "eyJleHBpcmF0aW9uIjog...",
            "x-amz-signature": "5d1c...",
        },
    },
)

start = extend_schema(
    summary="Start a direct upload: the file goes straight to storage",
    description=(
        "For large files: declare the file (`filename`, its exact `size`, optionally its "
        "`sha256`, `webhook_url`, `tags` and `metadata`), send its bytes where the answer "
        "says, then POST to `complete_url`. The API never handles the bytes. Admitted as "
        "an upload is (backlog, rate, jobs in flight, quota). Up to "
        "INGEST_MULTIPART_THRESHOLD_BYTES the answer is one form to POST to the bucket "
        "(`url`, `fields`, then the file as the last field `file`); past it, `parts`: PUT "
        "each part's bytes to its `url` (a part that fails is sent again alone). Both are "
        "valid until `expires_at`; an upload not completed by then expires. Send "
        "`Idempotency-Key` to make a repeat safe. Needs uploads stored in S3 "
        "(INGEST_S3_BUCKET): otherwise 409 `direct_upload_unavailable`."
    ),
    request=DirectUploadIn,
    parameters=[
        IDEMPOTENCY_KEY,
    ],
    responses={
        201: OpenApiResponse(DirectUploadOut, "Where to send the bytes, and how to complete."),
        400: OpenApiResponse(
            RefusalOut,
            "A bad field (`invalid`, with `fields`), an empty file (`empty`), or a "
            "`webhook_url` that may not be used (`invalid_webhook_url`).",
        ),
        409: OpenApiResponse(
            RefusalOut, "Uploads are not stored in S3 here (`direct_upload_unavailable`)."
        ),
        413: OpenApiResponse(
            RefusalOut,
            "Over INGEST_MAX_DIRECT_UPLOAD_BYTES (`too_large`), or over the storage quota.",
        ),
        422: OpenApiResponse(RefusalOut, "The Idempotency-Key was used for a different request."),
        429: OpenApiResponse(
            RefusalOut,
            f"Too many documents in flight for this user, throttled, or the quota. {_RETRY_AFTER}",
        ),
        503: OpenApiResponse(RefusalOut, f"The service's backlog is full. {_RETRY_AFTER}"),
    },
    examples=[STARTED],
)

complete = extend_schema(
    summary="Complete a direct upload: check the file and queue its job",
    description=(
        "Checks the object the bucket holds (it exists, has the declared size, starts as a "
        "PDF), then records the document and queues its job, as an upload does. "
        "Completing again gives the same answer. Without this call the job is made anyway, "
        "by a storage event or the sweeper."
    ),
    request=None,
    responses={
        202: OpenApiResponse(
            CompletedOut, "Accepted: the document, its job and the `status_url` to follow."
        ),
        400: OpenApiResponse(
            CompletedOut, "The object is not the declared size (`size_mismatch`): deleted."
        ),
        404: OpenApiResponse(RefusalOut, "No such upload of yours."),
        409: OpenApiResponse(
            RefusalOut, "The bytes (or some parts) have not arrived (`upload_incomplete`)."
        ),
        410: OpenApiResponse(RefusalOut, "The upload expired (`upload_expired`)."),
        413: OpenApiResponse(
            CompletedOut, "The object is over the limit (`too_large`): deleted; or the quota."
        ),
        415: OpenApiResponse(CompletedOut, "The object is not a PDF (`not_a_pdf`): deleted."),
        429: OpenApiResponse(RefusalOut, "Over the quota of documents."),
    },
    examples=[
        OpenApiExample(
            "Accepted",
            status_codes=["202"],
            response_only=True,
            value={
                "upload_id": _UPLOAD,
                "filename": "scans-2026.pdf",
                "document_id": "3f0c2a5e-8a41-4c55-a1c9-0d6f5b1e7a10",
                "job_id": _JOB,
                "status": "queued",
                "status_url": f"https://ingest.example.com/api/jobs/{_JOB}/",
            },
        )
    ],
)
