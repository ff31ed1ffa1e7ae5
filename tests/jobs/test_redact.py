"""Credentials never stay in error text: jobs.redact.scrub, and the job services that
store every detail, message and traceback through it."""

import pytest

from jobs import services
from jobs.admin.display import preformatted
from jobs.models import JobAttempt
from jobs.redact import scrub
from tests.factories import make_document


@pytest.mark.parametrize(
    ("text", "secret", "kept"),
    [
        (
            "OperationalError: connection to postgres://ingest:s3cr3t-pw@db.internal:5432/ingest",
            "s3cr3t-pw",
            "postgres://***@db.internal:5432/ingest",
        ),
        ("ConnectionError: redis://:hunter2hunter2@cache:6379/0", "hunter2", "redis://***@cache"),
        ("GET https://bob:pa55word@api.example.com/v1 failed", "pa55word", "api.example.com/v1"),
        (
            "headers={'Authorization': 'Bearer sk-proj-abcdefghijklmnop', 'Accept': 'json'}",
            "abcdefghijklmnop",
            "'Accept': 'json'",
        ),
        ("Authorization: Basic dXNlcjpwYXNz\nHost: x", "dXNlcjpwYXNz", "Authorization: ***"),
        ("Authorization=Token 0123456789abcdef", "0123456789abcdef", "Authorization="),
        (
            "POST https://provider.example/v1/embed?api_key=AbC123xyz&model=m failed",
            "AbC123xyz",
            "&model=m failed",
        ),
        ('{"apiKey": "k-998877665544", "model": "small"}', "998877665544", '"model": "small"'),
        ("OpenAI(api_key='sk-abcdefghij1234567890')", "abcdefghij1234567890", "OpenAI("),
        ("the key sk-abcdefghij1234567890 was refused", "abcdefghij", "was refused"),
        ("x-api-key: 5f4dcc3b5aa765d61d8327deb882cf99", "5f4dcc3b5aa7", "x-api-key: ***"),
        ("password=letmein99 user=ingest", "letmein99", "user=ingest"),
        ("signed with whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "MfKQ9r8G", "signed with"),
        ("S3 AccessDenied for AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "AccessDenied"),
    ],
)
def test_credentials_are_masked_and_the_rest_kept(text, secret, kept):
    scrubbed = scrub(text)

    assert secret not in scrubbed
    assert kept in scrubbed
    assert "***" in scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "The PDF is encrypted and cannot be read without a password.",
        "The PDF has 2500 pages; the limit is 2000.",
        "Gave up after 5 attempts. Last error: The embedding provider failed (HTTP 500).",
        'Traceback (most recent call last):\n  File "/app/jobs/processing.py", line 3',
        "max_tokens=8191 exceeded: 9000 tokens",
        "https://api.openai.com/v1/embeddings answered 503",
        "",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert scrub(text) == text


def test_this_deployments_own_secrets_are_masked_whatever_the_wording(settings):
    settings.OPENAI_API_KEY = "correct-horse-battery-staple"
    settings.INGEST_METRICS_TOKEN = "metrics-token-value-42"

    scrubbed = scrub(
        "client(key='correct-horse-battery-staple') and, oddly, metrics-token-value-42"
    )

    assert "correct-horse" not in scrubbed
    assert "metrics-token-value-42" not in scrubbed


@pytest.mark.django_db
def test_what_a_job_stores_is_scrubbed(alice):
    leaky = (
        "ConnectionError: postgres://ingest:db-pass-123@db:5432/x; "
        "Authorization: Bearer sk-abcdefgh12345678"
    )
    retried = services.claim_job(job_id=make_document(alice).current_job_id, worker="w:1:t")
    services.retry_or_fail(job=retried, code="connection", detail=leaky, tb="Traceback\n" + leaky)
    failed = services.claim_job(
        job_id=make_document(alice, sha256="f" * 64).current_job_id, worker="w:1:t"
    )
    services.fail_job(job=failed, code="corrupt", detail=leaky, tb="Traceback\n" + leaky)

    retried.refresh_from_db()
    failed.refresh_from_db()
    stored = [retried.error_detail, failed.error_detail]
    for attempt in JobAttempt.objects.all():
        stored += [attempt.error_message, attempt.traceback]
    assert len(stored) == 6
    for text in stored:
        assert "db-pass-123" not in text
        assert "sk-abcdefgh12345678" not in text
        assert "postgres://***@db:5432/x" in text


def test_the_admin_scrubs_what_it_shows_of_rows_stored_before():
    shown = str(preformatted("redis://:old-password@cache:6379 refused"))

    assert "old-password" not in shown
    assert "redis://***@cache:6379" in shown
