"""manage.py cleanup_orphans: stored files no document references, on local storage and S3.

Tests taking `storage_kind` run twice: on a private local media root and on the SeaweedFS
bucket (tests/documents/conftest.py), both as the default storage.
"""

import hashlib
import os
import time
import uuid
from datetime import timedelta
from io import StringIO

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection

from documents.models import Document
from documents.upkeep import orphans
from tests.conftest import pdf_upload
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db


def store(content: bytes = b"%PDF-1.4 orphan", owner_id: int = 1) -> str:
    """Put bytes where an upload would, with no Document row; return the key."""
    return default_storage.save(f"documents/{owner_id}/{uuid.uuid4()}/v1.pdf", ContentFile(content))


def referenced(owner, content: bytes = b"%PDF-1.4 kept") -> str:
    """A stored file with the Document row that references it; return the key."""
    key = store(content, owner.pk)
    Document.objects.create(
        owner=owner,
        filename="kept.pdf",
        size=len(content),
        sha256=hashlib.sha256(key.encode()).hexdigest(),  # unique per row, like real bytes
        storage_key=key,
    )
    return key


def cleanup(*arguments: str) -> list[str]:
    """Run the command; its output lines."""
    out = StringIO()
    call_command("cleanup_orphans", *arguments, stdout=out)
    return out.getvalue().splitlines()


def age(key: str, seconds: float) -> None:
    """Make a local file look last modified `seconds` ago."""
    then = time.time() - seconds
    os.utime(default_storage.path(key), (then, then))


def test_an_old_orphan_is_deleted_and_a_referenced_file_is_kept(storage_kind, alice):
    orphan = store(b"x" * 1500)
    kept = referenced(alice)

    lines = cleanup("--older-than", "0")

    assert lines == [orphan, "1 orphan, 1.5 KiB, deleted"]
    assert not default_storage.exists(orphan)
    assert default_storage.exists(kept)


def test_a_dry_run_lists_the_orphans_and_deletes_nothing(storage_kind, alice):
    first, second = store(b"a" * 10), store(b"b" * 20)
    referenced(alice)

    lines = cleanup("--dry-run", "--older-than", "0")

    assert sorted(lines[:-1]) == sorted([first, second])
    assert lines[-1] == "2 orphans, 30 bytes, would delete"
    assert default_storage.exists(first)
    assert default_storage.exists(second)


def test_an_orphan_younger_than_the_threshold_is_left_alone(storage_kind):
    young = store()

    lines = cleanup()

    assert lines == ["0 orphans, 0 bytes, nothing to delete"]
    assert default_storage.exists(young)


def test_the_default_threshold_is_one_hour_since_the_file_was_written(local_media):
    old, recent = store(), store()
    age(old, seconds=3600 + 60)
    age(recent, seconds=3600 - 60)

    lines = cleanup()

    assert lines[0] == old
    assert lines[-1].startswith("1 orphan, ")
    assert not default_storage.exists(old)
    assert default_storage.exists(recent)


def test_a_file_deleted_while_the_scan_runs_is_skipped(storage_kind):
    keys = {store(), store(), store()}

    def delete_the_others(orphan: orphans.Orphan) -> None:
        for key in keys - {orphan.key}:
            default_storage.delete(key)

    report = orphans.cleanup_orphans(min_age=timedelta(0), on_orphan=delete_the_others)

    assert report == orphans.CleanupReport(found=1, deleted=1, total_bytes=len(b"%PDF-1.4 orphan"))
    assert not any(default_storage.exists(key) for key in keys)


def test_files_outside_the_documents_prefix_are_never_touched(storage_kind):
    elsewhere = default_storage.save("exports/report.csv", ContentFile(b"a,b"))

    lines = cleanup("--older-than", "0")

    assert lines == ["0 orphans, 0 bytes, nothing to delete"]
    assert default_storage.exists(elsewhere)


def test_an_empty_storage_has_no_orphans(storage_kind):
    assert cleanup("--older-than", "0") == ["0 orphans, 0 bytes, nothing to delete"]


@pytest.fixture
def inserts_fail():
    """Documents cannot be inserted: a trigger makes Postgres refuse every row."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'the transaction fails after the bytes are stored'; END $$ "
            "LANGUAGE plpgsql; CREATE TRIGGER refuse BEFORE INSERT ON documents_document "
            "FOR EACH ROW EXECUTE FUNCTION refuse()"
        )
    yield
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER refuse ON documents_document; DROP FUNCTION refuse()")


@pytest.mark.django_db(transaction=True)
def test_an_upload_whose_transaction_fails_leaves_an_orphan_that_cleanup_removes(
    storage_kind, alice_client, broker, inserts_fail
):
    with pytest.raises(DatabaseError, match="transaction fails"):
        alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf())})
    assert not Document.objects.exists()
    [orphan] = [o.key for o in orphans.find_orphans(storage=default_storage, min_age=timedelta(0))]

    lines = cleanup("--older-than", "0")

    assert lines[0] == orphan
    assert lines[-1].endswith(" deleted")
    assert not default_storage.exists(orphan)


def test_references_are_looked_up_one_query_per_batch_of_keys(
    local_media, alice, monkeypatch, django_assert_num_queries
):
    monkeypatch.setattr(orphans, "BATCH_SIZE", 2)
    keys = [store() for _ in range(3)] + [referenced(alice) for _ in range(2)]

    with django_assert_num_queries(3):  # 5 keys in batches of 2
        found = list(orphans.find_orphans(storage=default_storage, min_age=timedelta(0)))

    assert len(keys) == 5
    assert sorted(orphan.key for orphan in found) == sorted(keys[:3])


def test_a_negative_age_is_refused(local_media):
    with pytest.raises(CommandError, match="--older-than"):
        cleanup("--older-than", "-1")
