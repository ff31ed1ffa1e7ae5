"""No hot path scans the jobs or documents table: each query the busy paths run on them
can use an index. Asked of the planner with sequential scans priced out
(`enable_seqscan = off`): a "Seq Scan" on either table then means no index serves the
query, which at millions of rows is a scan on every request (paperless-ngx's lesson).

The paths: the owner's document list (first page, a later page, filtered by status), the
admin's changelists of jobs, dead letters and documents, /ops/, /metrics, an upload, a
claim, one sweeper pass with its pruning, requeue_stuck."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from jobs import services
from jobs.models import Job, JobStatus
from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db

WATCHED = re.compile(r'"?(jobs_job|documents_document)"?\b')
SCANNED = re.compile(r"Seq Scan on (jobs_job|documents_document)\b")


def scans(queries: list[dict]) -> list[str]:
    """The captured statements on the watched tables whose plan scans one of them."""
    found = []
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            for query in queries:
                sql = query["sql"]
                if not WATCHED.search(sql) or not sql.lstrip().upper().startswith(
                    ("SELECT", "UPDATE", "DELETE", "WITH")
                ):
                    continue
                cursor.execute("EXPLAIN " + sql)
                plan = "\n".join(row[0] for row in cursor.fetchall())
                if SCANNED.search(plan):
                    found.append(f"{sql[:300]}\n{plan}")
        finally:
            cursor.execute("RESET enable_seqscan")
    return found


@pytest.fixture
def history(alice, bob):
    """Rows of every kind the paths read: ended, failed (dead letters), queued."""
    for n in range(30):
        document = make_document(alice if n % 3 else bob, filename=f"r{n}.pdf")
        status = [JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.QUEUED][n % 3]
        Job.objects.filter(id=document.current_job_id).update(
            status=status, finished_at=timezone.now() if status != JobStatus.QUEUED else None
        )


@pytest.fixture
def operator(db, django_user_model):
    user = django_user_model.objects.create_user("olivia", password="x", is_staff=True)
    for codename in ("view_job", "view_deadletter", "view_document"):
        user.user_permissions.add(Permission.objects.get(codename=codename))
    client = Client()
    client.force_login(user)
    return client


def test_the_owners_list_pages_and_filter_use_indexes(history, alice_client):
    with CaptureQueriesContext(connection) as captured:
        first = alice_client.get("/api/documents/", {"page_size": 5})
        later = alice_client.get(first.json()["next"])
        failed = alice_client.get("/api/documents/", {"status": "failed"})
    assert [first.status_code, later.status_code, failed.status_code] == [200, 200, 200]
    assert scans(captured.captured_queries) == []


def test_the_admins_lists_ops_and_metrics_use_indexes(history, operator):
    with CaptureQueriesContext(connection) as captured:
        for path in (
            "/admin/jobs/job/",
            "/admin/jobs/deadletter/",
            "/admin/documents/document/",
            "/ops/",
        ):
            assert operator.get(path).status_code == 200, path
        assert Client().get("/metrics").status_code == 200
    assert scans(captured.captured_queries) == []


def test_an_upload_a_claim_and_a_sweep_use_indexes(history, alice_client, broker):
    with CaptureQueriesContext(connection) as captured:
        answer = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf())})
        job_id = answer.json()["results"][0]["job_id"]
        assert services.claim_job(job_id=job_id, worker="w:1") is not None
        call_command("requeue_stuck", verbosity=0)
    assert answer.status_code == 202
    assert scans(captured.captured_queries) == []
