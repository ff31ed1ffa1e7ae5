"""Documents in the Django admin: read-only, with their status; deleting removes the files."""

import pytest
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client

from documents.models import Document
from jobs.models import Job, JobStatus
from tests.factories import make_document

DOCUMENTS = "/admin/documents/document/"


@pytest.fixture
def operator_client(db) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("olivia", "olivia@example.com", "pw"))
    return client


@pytest.mark.django_db
def test_the_document_list_shows_each_documents_current_status(
    operator_client, alice, django_assert_max_num_queries
):
    for number in range(10):
        document = make_document(alice, filename=f"scan-{number}.pdf")
        Job.objects.filter(id=document.current_job_id).update(status=JobStatus.FAILED)

    # session, user, the paginator's estimate and (a small list) its count, one query for
    # the page with owners and jobs
    with django_assert_max_num_queries(5):
        response = operator_client.get(DOCUMENTS)

    assert response.status_code == 200
    page = response.content.decode()
    assert page.count(">failed</span>") == 10
    assert "scan-9.pdf" in page


@pytest.mark.django_db
def test_documents_cannot_be_added_or_edited_in_the_admin(operator_client, alice):
    document = make_document(alice, filename="keep.pdf")

    added = operator_client.get(f"{DOCUMENTS}add/")
    edited = operator_client.post(f"{DOCUMENTS}{document.id}/change/", {"filename": "x.pdf"})

    assert added.status_code == edited.status_code == 403
    document.refresh_from_db()
    assert document.filename == "keep.pdf"


@pytest.mark.django_db(transaction=True)
def test_deleting_a_document_in_the_admin_removes_its_jobs_and_stored_file(operator_client, alice):
    key = default_storage.save(f"documents/{alice.pk}/doc/v1.pdf", ContentFile(b"%PDF-1.7"))
    document = make_document(alice, storage_key=key)

    response = operator_client.post(f"{DOCUMENTS}{document.id}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Document.objects.filter(id=document.id).exists()
    assert not Job.objects.filter(document_id=document.id).exists()
    assert not default_storage.exists(key), "removed once the deletion committed"
