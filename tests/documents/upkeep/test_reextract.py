"""manage.py reprocess extraction (alias reextract): documents read before their structure
was are read again, in waves, as new jobs of the version search serves, and gain their
structure; no owner sees a new version, and a second run finds nothing to do."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from documents.models import Document
from jobs.models import Job, JobStatus
from search.models import Block, Chunk, DocumentPage
from tests.bench.structure import corpus
from tests.conftest import pdf_upload, running_worker, wait_until_terminal

pytestmark = pytest.mark.django_db(transaction=True)


def reextract(*args: str) -> str:
    out = io.StringIO()
    call_command("reprocess", "extraction", "--poll", "0.05", *args, stdout=out, stderr=out)
    return out.getvalue()


def test_documents_read_flat_gain_their_structure_in_place(alice_client, broker, settings):
    settings.INGEST_STRUCTURE = "off"
    with running_worker(broker):
        sent = alice_client.post("/api/documents/", {"file": pdf_upload(corpus.report().pdf)})
        result = sent.json()["results"][0]
        wait_until_terminal([result["job_id"]])
    document_id = result["document_id"]
    flat = list(Chunk.objects.filter(document_id=document_id).values_list("text", flat=True))
    assert not Block.objects.filter(document_id=document_id).exists()
    assert any("Page 2 of 3" in text for text in flat)
    settings.INGEST_STRUCTURE = "on"

    dry = reextract("--dry-run")
    with running_worker(broker):
        said = reextract()
    again = reextract("--dry-run")

    document = Document.objects.get(id=document_id)
    jobs = list(Job.objects.filter(document_id=document_id).order_by("created_at"))
    chunks = list(Chunk.objects.filter(document_id=document_id))
    assert "1 ready documents: 1 by flat" in dry
    assert "would queue: 1" in dry
    assert "would queue: 0" in again
    assert "1 ready documents: 1 by layout:1" in again
    assert "finished: queued 1 of 1, done 1, failed 0, in flight 0" in said
    assert (document.version, document.ready_version) == (1, 1)
    assert [(job.version, job.status, job.extracted_by) for job in jobs] == [
        (1, JobStatus.SUCCEEDED, "flat"),
        (1, JobStatus.SUCCEEDED, "layout:1"),
    ]
    assert DocumentPage.objects.filter(document_id=document_id, version=1).count() == 3
    assert Block.objects.filter(document_id=document_id, kind="page_number").count() == 3
    assert not any("Page 2 of 3" in chunk.text for chunk in chunks)
    assert {chunk.version for chunk in chunks} == {1}


def test_it_is_refused_while_the_structure_is_off(settings):
    settings.INGEST_STRUCTURE = "off"

    with pytest.raises(CommandError, match="INGEST_STRUCTURE is off"):
        reextract()
