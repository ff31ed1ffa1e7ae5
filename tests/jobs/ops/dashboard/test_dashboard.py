"""The ops dashboard (/ops/ and the panel it polls): who gets in, and what it shows of the
job rows, the workers' heartbeats and the history, on the real Postgres."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from jobs.models import Job, JobStatus, WorkerProcess
from jobs.ops.dashboard import history, panels
from tests.factories import make_document

pytestmark = pytest.mark.django_db

CHARTS = [
    "queued",
    "oldest",
    "wanted",
    "documents",
    "pages",
    "ocr-pages",
    "ready",
    "failures",
    "retries",
    "rate-limited",
    "waited",
]


@pytest.fixture
def staff(db) -> User:
    """Staff allowed to see jobs in the admin, as the dashboard requires."""
    user = User.objects.create_user("olivia", password="olivia-password", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_job"))
    return user


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ended(owner, *, status=JobStatus.SUCCEEDED, code="", pages=1, ago=timedelta(seconds=5)):
    document = make_document(owner, page_count=pages, filename=f"{status}-{pages}.pdf")
    finished = timezone.now() - ago
    Job.objects.filter(id=document.current_job_id).update(
        status=status, error_code=code, finished_at=finished, created_at=finished - ago
    )


def figure(html: str, name: str) -> str:
    found = re.search(rf'data-figure="{name}"[^>]*>\s*(?:<strong>)?([^<]*)<', html)
    assert found, f"no {name} on the page"
    return found.group(1).strip()


def summary(html: str, chart: str) -> str:
    found = re.search(rf'id="chart-{chart}".*?data-summary>([^<]*)<', html, re.S)
    assert found, f"no chart {chart}"
    return found.group(1)


@pytest.mark.parametrize("name", ["ops-dashboard", "ops-panel"])
def test_anonymous_visitors_are_sent_to_sign_in(client, name):
    response = client.get(reverse(name))

    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={reverse(name)}"


@pytest.mark.parametrize("name", ["ops-dashboard", "ops-panel"])
def test_a_signed_in_user_who_is_not_staff_gets_403(alice, name):
    response = signed_in(alice).get(reverse(name))

    assert response.status_code == 403


@pytest.mark.parametrize("name", ["ops-dashboard", "ops-panel"])
def test_staff_who_may_not_see_jobs_get_403(db, name):
    """The dashboard names every user's files: being staff alone is not enough."""
    other = User.objects.create_user("sam", password="sam-password", is_staff=True)

    assert signed_in(other).get(reverse(name)).status_code == 403


def test_staff_see_every_chart_as_inline_svg(staff):
    response = signed_in(staff).get(reverse("ops-dashboard"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Pipeline dashboard</h1>" in html
    for chart in CHARTS:
        assert re.search(rf'id="chart-{chart}".*?<svg class="ops-chart"', html, re.S), chart
    assert html.count('<svg class="ops-chart"') == len(CHARTS)
    assert "cdn" not in html.lower()
    assert response["Cache-Control"].startswith("max-age=0")


def test_the_panel_polls_itself_and_keeps_its_window(staff):
    response = signed_in(staff).get(reverse("ops-panel"), {"window": "24h"})

    html = response.content.decode()
    assert "<html" not in html
    assert 'hx-trigger="every 5s"' in html
    assert f'hx-get="{reverse("ops-panel")}?window=24h"' in html
    assert re.search(r'aria-current="page">The last 24 hours<', html)
    # 96 slots of 15 minutes per chart, each with its tooltip.
    assert html.count('class="slot"') == 96 * len(CHARTS)


def test_an_unknown_window_shows_the_last_hour(staff):
    html = signed_in(staff).get(reverse("ops-panel"), {"window": "1y"}).content.decode()

    assert html.count('class="slot"') == 60 * len(CHARTS)


def test_what_ended_shows_at_once_before_any_sweep(staff, alice):
    for pages in (2, 3, 4):
        ended(alice, pages=pages)
    ended(alice, status=JobStatus.FAILED, code="corrupt")
    ended(alice, status=JobStatus.FAILED, code="no_text", ago=timedelta(seconds=40))

    html = signed_in(staff).get(reverse("ops-dashboard")).content.decode()

    assert summary(html, "documents") == "3 in the last hour"
    assert summary(html, "pages") == "9 in the last hour"
    assert summary(html, "failures") == "2 in the last hour"
    assert "corrupt" in html
    assert "no_text" in html
    assert figure(html, "dead-letters") == "2"
    assert reverse("admin:jobs_deadletter_changelist") in html


def test_past_a_cap_the_dead_letters_are_not_counted_to_the_last(staff, alice, monkeypatch):
    monkeypatch.setattr(panels, "DEAD_LETTERS_COUNTED", 2)
    for _ in range(3):
        ended(alice, status=JobStatus.FAILED, code="corrupt")

    html = signed_in(staff).get(reverse("ops-dashboard")).content.decode()

    assert figure(html, "dead-letters") == "2+"


def test_the_history_shows_what_the_sweeper_recorded(staff, alice):
    ended(alice, pages=5, ago=timedelta(minutes=20))
    history.record()
    Job.objects.all().delete()  # the history keeps what happened

    html = signed_in(staff).get(reverse("ops-dashboard")).content.decode()

    assert summary(html, "documents") == "1 in the last hour"
    assert summary(html, "pages") == "5 in the last hour"


def test_the_lanes_now_show_queue_and_workers_wanted(staff, alice):
    for _ in range(3):
        make_document(alice)

    html = signed_in(staff).get(reverse("ops-dashboard")).content.decode()

    assert figure(html, "queued-fast") == "3"
    assert figure(html, "queued-batch") == "0"
    assert int(figure(html, "workers-wanted-fast")) >= 1
    assert summary(html, "queued") == "now: fast 3 · batch 0 · ocr 0"


def test_workers_alive_show_what_each_holds_now(staff, alice):
    now = timezone.now()
    beat = {"host": "w1", "threads": 4, "queues": ["fast"], "started_at": now}
    WorkerProcess.objects.create(name="w1:10", pid=10, beat_at=now, **beat)
    WorkerProcess.objects.create(name="w1:1", pid=1, beat_at=now, **beat)  # a name prefix
    WorkerProcess.objects.create(name="w1:11", pid=11, beat_at=now - timedelta(hours=1), **beat)
    held = make_document(alice, filename="annual-report.pdf").current_job
    stale = make_document(alice, filename="left-behind.pdf").current_job
    Job.objects.filter(id=held.id).update(
        status=JobStatus.PROCESSING, worker="w1:10:Thread-2", started_at=now, heartbeat_at=now
    )
    Job.objects.filter(id=stale.id).update(
        status=JobStatus.PROCESSING, worker="w1:11:Thread-1", started_at=now, heartbeat_at=now
    )

    html = signed_in(staff).get(reverse("ops-dashboard")).content.decode()

    assert figure(html, "processes") == "2"
    table = html[html.index('id="workers-title"') :]
    row = re.search(r"w1:10</span>.*?</tr>", table, re.S).group(0)
    assert "annual-report.pdf" in row
    assert str(held.id)[:8] in row
    assert "1 of 4" in row
    idle = re.search(r"w1:1</span>.*?</tr>", table, re.S).group(0)
    assert "idle" in idle
    assert "w1:11</span>" not in table
    assert "Held by workers that stopped beating" in table
    assert "left-behind.pdf" in table


def test_the_panel_reads_in_a_few_queries_however_many_workers_and_jobs(
    staff, alice, django_assert_max_num_queries
):
    now = timezone.now()
    for pid in range(5):
        WorkerProcess.objects.create(
            name=f"w:{pid}", host="w", pid=pid, threads=2, queues=[], started_at=now, beat_at=now
        )
        job = make_document(alice).current_job
        Job.objects.filter(id=job.id).update(status=JobStatus.PROCESSING, worker=f"w:{pid}:t")
    client = signed_in(staff)

    with django_assert_max_num_queries(14):
        client.get(reverse("ops-panel"))


def test_the_admin_index_links_to_the_dashboard(staff):
    staff.is_superuser = True
    staff.save()

    html = signed_in(staff).get(reverse("admin:index")).content.decode()

    assert f'<a href="{reverse("ops-dashboard")}"><strong>Pipeline dashboard</strong></a>' in html
