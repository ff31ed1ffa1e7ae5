"""The admin's lists count from the planner's estimate once it is large, and exactly below
that: a COUNT(*) over millions of jobs on every page load is what made paperless-ngx's
list take minutes (config.http.pagination.estimated_count)."""

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.http import pagination
from jobs.models import Job, JobStatus
from tests.jobs.admin.admin_console import DEAD_LETTERS, JOBS, job_in, logged_in, staff_with

pytestmark = pytest.mark.django_db

COUNTS_JOBS = re.compile(r'SELECT COUNT\(\*\) AS "__count" FROM "jobs_job"')


@pytest.fixture
def jobs(alice):
    made = [job_in(alice, JobStatus.SUCCEEDED, filename=f"{n}.pdf") for n in range(24)]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE jobs_job")
    return made


@pytest.fixture
def operator():
    return logged_in(staff_with("olivia", "view_job", "view_deadletter"))


def planned_rows() -> int:
    return int(json.loads(Job.objects.order_by().explain(format="json"))[0]["Plan"]["Plan Rows"])


def test_a_small_list_is_counted_exactly(jobs, operator):
    with CaptureQueriesContext(connection) as captured:
        response = operator.get(JOBS)

    assert response.context["cl"].result_count == len(jobs)
    assert any(COUNTS_JOBS.search(query["sql"]) for query in captured.captured_queries)


@pytest.mark.parametrize("page", [JOBS, DEAD_LETTERS])
def test_past_the_threshold_the_list_shows_the_estimate_without_counting(
    jobs, operator, page, monkeypatch
):
    monkeypatch.setattr(pagination, "ESTIMATE_ABOVE", 0)
    with CaptureQueriesContext(connection) as captured:
        response = operator.get(page)

    assert response.status_code == 200
    sql = [query["sql"] for query in captured.captured_queries]
    assert not any(COUNTS_JOBS.search(statement) for statement in sql)
    assert any(statement.startswith("EXPLAIN") for statement in sql)
    if page == JOBS:
        assert response.context["cl"].result_count == planned_rows()


def test_the_estimate_follows_the_filter(jobs, operator, monkeypatch):
    monkeypatch.setattr(pagination, "ESTIMATE_ABOVE", 0)
    everything = operator.get(JOBS).context["cl"].result_count
    failed = operator.get(JOBS, {"status__exact": "failed"}).context["cl"].result_count

    assert failed < everything
