"""ops_jobcount, kept by triggers, always says what a count of jobs_job would say."""

import pytest
from django.db.models import Count

from documents.services import deletion as documents
from jobs import services
from jobs.models import Job, JobStatus
from jobs.ops import counts
from jobs.ops.models import JobCount
from tests.factories import make_document

pytestmark = pytest.mark.django_db


def counted_directly() -> dict[tuple[str, str], int]:
    found = dict.fromkeys(counts.jobs_by_status_and_lane(), 0)
    for row in Job.objects.order_by().values("status", "lane").annotate(n=Count("*")):
        found[(row["status"], row["lane"])] = row["n"]
    return found


def test_the_counts_follow_every_kind_of_change(alice):
    docs = [make_document(alice) for _ in range(4)]  # each with its first job, queued
    jobs = [doc.current_job for doc in docs]
    assert counts.jobs_by_status_and_lane()[("queued", "fast")] == 4

    claimed = services.claim_job(job_id=jobs[0].id, worker="w:1:t")
    assert claimed is not None
    services.fail_job(job=claimed, code="embedding_rejected", detail="bad")  # retryable
    services.cancel_jobs(job_ids=[jobs[1].id])
    services.retry_jobs(job_ids=[jobs[0].id])  # failed → queued again
    Job.objects.filter(id=jobs[2].id).update(heartbeat_at=None)  # no move: nothing added
    documents.delete_document(document_id=docs[3].id, owner_id=alice.pk)  # its job goes too

    assert counts.jobs_by_status_and_lane() == counted_directly()
    assert counted_directly()[("queued", "fast")] == 2  # the retried one, and jobs[2]


def test_folding_keeps_the_sums_and_leaves_one_row_a_pair(alice):
    for _ in range(3):
        make_document(alice)
    Job.objects.update(status=JobStatus.CANCELLED)
    before = counts.jobs_by_status_and_lane()

    counts.fold()

    assert counts.jobs_by_status_and_lane() == before == counted_directly()
    assert list(JobCount.objects.values_list("status", "n")) == [("cancelled", 3)]
