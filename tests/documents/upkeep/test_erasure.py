"""Deleting completely: a document, an account (manage.py erase_user, the admin's delete).
Every row, chunk, vector, stored file, pending delivery and cached query embedding of it
goes; another account's stay; a second run finishes what a crash left."""

from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from config.common import redis_clients
from documents.models import Document
from documents.services import deletion
from jobs.models import Job, JobAttempt
from jobs.webhooks.models import Delivery, DeliveryStatus, Event
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_pdf, stored_files

pytestmark = pytest.mark.django_db(transaction=True)


def processed(client, seed: int) -> dict:
    answer = client.post("/api/documents/", {"file": pdf_upload(make_pdf(pages=2, seed=seed))})
    assert answer.status_code == 202, answer.content
    result = answer.json()["results"][0]
    wait_until_terminal([result["job_id"]])
    return result


def pending_event(owner, document_id) -> Event:
    event = Event.objects.create(
        type="document.succeeded",
        owner=owner,
        document_id=document_id,
        job_id=Document.objects.get(id=document_id).current_job_id,
        payload={},
    )
    Delivery.objects.create(
        event=event, owner=owner, url="https://example.com/", status=DeliveryStatus.PENDING
    )
    return event


def cached_query(owner_id: int) -> str:
    redis = redis_clients.client(settings.REDIS_URL, connect_timeout=2, timeout=5)
    key = f"ingest:search:qvec:{owner_id}:openai:m:3:{'0' * 64}"
    redis.set(key, b"\0" * 12)
    return key


def held_by(owner_id: int) -> dict[str, int]:
    """What the database, the storage and Redis hold of an account."""
    redis = redis_clients.client(settings.REDIS_URL, connect_timeout=2, timeout=5)
    prefix = f"{settings.MEDIA_ROOT}/documents/{owner_id}/"
    return {
        "documents": Document.objects.filter(owner_id=owner_id).count(),
        "jobs": Job.objects.filter(owner_id=owner_id).count(),
        "attempts": JobAttempt.objects.filter(job__owner_id=owner_id).count(),
        "chunks": Chunk.objects.filter(document__owner_id=owner_id).count(),
        "events": Event.objects.filter(owner_id=owner_id).count(),
        "deliveries": Delivery.objects.filter(owner_id=owner_id).count(),
        "files": sum(1 for path in stored_files() if str(path).startswith(prefix)),
        "cached": len(list(redis.scan_iter(match=f"ingest:search:qvec:{owner_id}:*"))),
        "user": get_user_model().objects.filter(id=owner_id).count(),
    }


def test_erasing_an_account_leaves_nothing_of_it_and_all_of_another(
    alice, bob, alice_client, bob_client, worker
):
    first = processed(alice_client, seed=1)
    processed(alice_client, seed=2)
    theirs = processed(bob_client, seed=3)
    pending_event(alice, first["document_id"])
    pending_event(bob, theirs["document_id"])
    cached_query(alice.pk)
    cached_query(bob.pk)
    bobs = held_by(bob.pk)
    assert all(held_by(alice.pk).values())  # something of each kind to erase

    out = StringIO()
    call_command("erase_user", "alice", "--yes", stdout=out)

    assert set(held_by(alice.pk).values()) == {0}
    assert held_by(bob.pk) == bobs
    assert "erased alice: 2 documents" in out.getvalue()


def test_a_second_run_finishes_what_a_crash_left(alice, alice_client, worker, monkeypatch):
    processed(alice_client, seed=4)
    monkeypatch.setattr(deletion, "delete_files", lambda keys: None)  # the crash: rows gone
    deletion.erase_documents(owner_id=alice.pk)
    left = default_storage.save(f"documents/{alice.pk}/x/v1.pdf", ContentFile(b"%PDF-1.4"))
    assert held_by(alice.pk)["files"] == 2
    monkeypatch.undo()
    alice_id = alice.pk
    alice.delete()  # and the user with it, before anything else ran

    call_command("erase_user", "--id", str(alice_id), "--yes", stdout=StringIO())

    assert held_by(alice_id)["files"] == 0
    assert not default_storage.exists(left)


def test_a_name_of_digits_is_a_name_and_an_id_is_given_as_id(alice, bob):
    users = get_user_model().objects
    users.create_user(username=str(alice.pk), password="x")
    bobs_id = bob.pk

    call_command("erase_user", str(alice.pk), "--yes", stdout=StringIO())
    assert set(users.values_list("id", flat=True)) == {alice.pk, bobs_id}

    with pytest.raises(CommandError, match=f"No user named '{bobs_id}'.*--id ID"):
        call_command("erase_user", str(bobs_id), "--yes", stdout=StringIO())
    assert users.filter(id=bobs_id).exists()

    out = StringIO()
    call_command("erase_user", "--id", str(bobs_id), "--yes", stdout=out)
    assert set(users.values_list("id", flat=True)) == {alice.pk}
    assert "erased bob:" in out.getvalue()


@pytest.mark.parametrize("given", [[], ["alice", "--id", "1"]])
def test_a_name_and_an_id_together_or_neither_are_refused(alice, given):
    with pytest.raises(CommandError, match="Give a username, or --id ID, not both"):
        call_command("erase_user", *given, "--yes", stdout=StringIO())

    assert get_user_model().objects.filter(id=alice.pk).exists()


def test_deleting_a_document_takes_its_events_and_pending_deliveries(alice, alice_client, worker):
    kept, deleted = processed(alice_client, seed=5), processed(alice_client, seed=6)
    pending_event(alice, kept["document_id"])
    gone = pending_event(alice, deleted["document_id"])

    answer = alice_client.delete(f"/api/documents/{deleted['document_id']}/")

    assert answer.status_code == 204
    assert not Event.objects.filter(id=gone.id).exists()
    assert not Delivery.objects.filter(event_id=gone.id).exists()
    assert Event.objects.filter(document_id=kept["document_id"]).count() == 1


def test_the_admins_delete_erases(alice, alice_client, admin_client, worker):
    processed(alice_client, seed=7)
    asked = admin_client.get(f"/admin/auth/user/{alice.pk}/delete/")
    assert asked.status_code == 200
    assert "alice: 1 documents, with their jobs" in asked.content.decode()

    answer = admin_client.post(f"/admin/auth/user/{alice.pk}/delete/", {"post": "yes"})

    assert answer.status_code == 302
    assert set(held_by(alice.pk).values()) == {0}
