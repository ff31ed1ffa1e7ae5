"""What the job admin's tests share: the people who use the console and the jobs they find
there. The fixtures are in tests/jobs/conftest.py."""

import uuid

from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone

from jobs.models import Job, JobStatus
from tests.factories import make_document

JOBS = "/admin/jobs/job/"
DEAD_LETTERS = "/admin/jobs/deadletter/"


def staff_with(username: str, *codenames: str) -> User:
    user = User.objects.create_user(username, f"{username}@example.com", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def job_in(owner: User, status: str, filename: str = "a.pdf", **fields) -> Job:
    """A document with a current job in `status`; `fields` set on the job as they are."""
    job = make_document(owner, filename=filename).current_job
    finished = timezone.now() if status in (JobStatus.SUCCEEDED, JobStatus.FAILED) else None
    values = {"status": status, "finished_at": finished, **fields}
    Job.objects.filter(id=job.id).update(**values)
    job.refresh_from_db()
    return job


def failed_job(owner: User, filename: str = "a.pdf", code: str = "corrupt", **fields) -> Job:
    values = {"error_code": code, "error_detail": f"{filename} could not be parsed."}
    return job_in(owner, JobStatus.FAILED, filename, **{"attempts": 1, **values, **fields})


def run_action(client: Client, page: str, action: str, jobs: list[Job]):
    return client.post(
        page,
        {"action": action, ACTION_CHECKBOX_NAME: [str(job.id) for job in jobs], "index": 0},
        follow=True,
    )


def listed_ids(response) -> set[uuid.UUID]:
    return {job.id for job in response.context["cl"].result_list}


def list_filter(response, title: str):
    [found] = [spec for spec in response.context["cl"].filter_specs if spec.title == title]
    return found


def statuses(jobs: list[Job]) -> dict[uuid.UUID, str]:
    return dict(Job.objects.filter(id__in=[j.id for j in jobs]).values_list("id", "status"))
