"""manage.py verify_storage: the database against the storage, both ways, on local
storage and on the SeaweedFS bucket (`storage_kind`, tests/documents/conftest.py)."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from documents.models import Document
from documents.upkeep import verify
from jobs.models import Job, JobStatus
from tests.conftest import pdf_upload
from tests.documents.upkeep.test_cleanup_orphans import store
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db


def run(*arguments: str) -> tuple[list[str], int]:
    """The command's output lines, and its exit status (1 when it raised CommandError)."""
    out = StringIO()
    try:
        call_command("verify_storage", "--older-than", "0", *arguments, stdout=out)
    except CommandError:
        return out.getvalue().splitlines(), 1
    return out.getvalue().splitlines(), 0


def uploaded(client, words: int = 10) -> dict:
    answer = client.post("/api/documents/", {"file": pdf_upload(make_pdf(words_per_page=words))})
    assert answer.status_code == 202, answer.content
    return answer.json()["results"][0]


def test_a_storage_that_agrees_reports_nothing(storage_kind, alice_client, broker):
    uploaded(alice_client)

    lines, status = run()

    assert status == 0
    # Other tests' accounts may have left empty folders in the shared bucket: no files.
    [line] = lines
    assert line.endswith(" accounts, 1 stored files: 0 orphans (0 bytes), 0 missing")


def test_both_ways_are_reported_then_repaired(storage_kind, alice, alice_client, broker):
    kept = uploaded(alice_client, words=11)
    lost = uploaded(alice_client, words=12)
    lost_key = Document.objects.get(id=lost["document_id"]).storage_key
    default_storage.delete(lost_key)
    orphan = store(b"%PDF-1.4 left behind" * 50, alice.pk)

    lines, status = run()

    assert status == 1  # a disagreement is an error until repaired
    assert f"missing {lost_key}: document {lost['document_id']}" in lines
    assert any(line.startswith(f"orphan  {orphan} (") for line in lines)
    assert default_storage.exists(orphan)  # only reported
    assert Job.objects.get(id=lost["job_id"]).status == JobStatus.QUEUED

    lines, status = run("--fix")

    assert status == 0
    assert lines[-1].endswith("1 orphans (1000 bytes), 1 missing; deleted 1, failed 1 queued jobs")
    assert not default_storage.exists(orphan)
    job = Job.objects.get(id=lost["job_id"])
    assert (job.status, job.error_code) == (JobStatus.FAILED, "file_missing")
    assert Job.objects.get(id=kept["job_id"]).status == JobStatus.QUEUED
    assert default_storage.exists(Document.objects.get(id=kept["document_id"]).storage_key)

    lines, status = run()  # what --fix could repair is repaired; the loss is still told
    assert status == 1
    assert [line for line in lines if line.startswith("orphan")] == []


def test_young_files_are_no_orphans_yet(local_media, alice):
    young = store(b"%PDF-1.4 still committing", alice.pk)

    report = verify.verify(min_age=timedelta(hours=1))

    assert report.orphans == []
    assert report.stored == 1
    assert default_storage.exists(young)


def test_an_account_with_no_files_left_has_each_row_missing(local_media, alice_client, broker):
    first = uploaded(alice_client)
    default_storage.delete(Document.objects.get(id=first["document_id"]).storage_key)

    report = verify.verify()

    assert [found.document_id for found in report.missing] == [
        Document.objects.get(id=first["document_id"]).id
    ]
