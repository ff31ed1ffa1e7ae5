"""The webhooks admin: endpoints (no secret in full, switched on and off, deleted as the
API deletes), and deliveries with their attempt logs, read-only."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone

from jobs.models import Job
from jobs.webhooks.models import DeliveryStatus, Endpoint, EventType
from tests.jobs.webhooks.admin_pages import (
    DELIVERIES,
    ENDPOINTS,
    PUBLIC,
    delivery_in,
    event_for,
    listed,
    operator_client,
    run_action,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator() -> Client:
    return operator_client()


# --------------------------------------------------------------------------- endpoints


def test_the_endpoint_pages_show_the_secret_only_in_part(operator, alice):
    endpoint = Endpoint.objects.create(owner=alice, url=PUBLIC, events=[EventType.FAILED])

    listing = operator.get(ENDPOINTS)
    detail = operator.get(f"{ENDPOINTS}{endpoint.id}/change/")

    assert listing.status_code == detail.status_code == 200
    for page in (listing.content.decode(), detail.content.decode()):
        assert PUBLIC in page
        assert endpoint.secret not in page
    assert "document.failed" in listing.content.decode()
    assert f"{endpoint.secret[:10]}…" in detail.content.decode()


def test_endpoints_are_not_added_in_the_admin(operator):
    assert operator.get(f"{ENDPOINTS}add/").status_code == 403


def test_switching_an_endpoint_off_and_on_says_why_and_then_clears_it(operator, alice):
    endpoint = Endpoint.objects.create(owner=alice, url=PUBLIC)
    change = f"{ENDPOINTS}{endpoint.id}/change/"

    off = operator.post(change, {"events": [EventType.SUCCEEDED]})
    endpoint.refresh_from_db()
    assert off.status_code == 302
    assert (endpoint.active, endpoint.events) == (False, [EventType.SUCCEEDED])
    assert endpoint.disabled_reason == "Disabled in the admin by olivia."

    operator.post(change, {"events": [EventType.SUCCEEDED], "active": "on"})
    endpoint.refresh_from_db()
    assert (endpoint.active, endpoint.disabled_reason) == (True, "")


def test_an_endpoint_needs_at_least_one_event(operator, alice):
    endpoint = Endpoint.objects.create(owner=alice, url=PUBLIC)

    response = operator.post(f"{ENDPOINTS}{endpoint.id}/change/", {"active": "on"})

    assert response.status_code == 200  # the form again, with its error
    endpoint.refresh_from_db()
    assert endpoint.events == [EventType.SUCCEEDED, EventType.FAILED]


def test_deleting_endpoints_in_bulk_disables_their_pending_deliveries(operator, alice):
    endpoint = Endpoint.objects.create(owner=alice, url=PUBLIC)
    pending = delivery_in(DeliveryStatus.PENDING, event=event_for(alice), endpoint=endpoint)

    response = operator.post(
        ENDPOINTS,
        {"action": "delete_selected", "_selected_action": [str(endpoint.id)], "post": "yes"},
        follow=True,
    )

    assert response.status_code == 200
    assert not Endpoint.objects.exists()
    pending.refresh_from_db()
    assert (pending.status, pending.endpoint_id) == (DeliveryStatus.DISABLED, None)


def test_deleting_one_endpoint_disables_its_pending_deliveries(operator, alice):
    endpoint = Endpoint.objects.create(owner=alice, url=PUBLIC)
    pending = delivery_in(DeliveryStatus.PENDING, event=event_for(alice), endpoint=endpoint)

    operator.post(f"{ENDPOINTS}{endpoint.id}/delete/", {"post": "yes"})

    assert not Endpoint.objects.exists()
    pending.refresh_from_db()
    assert pending.status == DeliveryStatus.DISABLED


# --------------------------------------------------------------------------- deliveries


@pytest.fixture
def four(alice, bob):
    """A delivery in each state."""
    soon = timezone.now() + timedelta(minutes=4)
    return {
        "pending": delivery_in(
            DeliveryStatus.PENDING,
            event=event_for(alice),
            attempts=2,
            codes=(503, 500),
            next_attempt_at=soon,
        ),
        "delivered": delivery_in(
            DeliveryStatus.DELIVERED,
            event=event_for(alice, filename="b.pdf"),
            url=PUBLIC + "/alice",
            attempts=1,
            codes=(204,),
            delivered_at=timezone.now(),
        ),
        "failed": delivery_in(
            DeliveryStatus.FAILED,
            event=event_for(bob, EventType.FAILED),
            url="https://93.184.215.15/bob",
            attempts=3,
            codes=(None, 500, 502),
        ),
        "disabled": delivery_in(
            DeliveryStatus.DISABLED, event=event_for(bob), attempts=1, codes=(410,)
        ),
    }


def test_the_delivery_list_shows_every_state_at_a_glance(operator, four):
    response = operator.get(DELIVERIES)

    assert response.status_code == 200
    assert listed(response) == {row.id for row in four.values()}
    html = response.content.decode()
    for status in ("pending", "delivered", "failed", "disabled"):
        assert f">{status}</span>" in html
    assert "in about 4 minutes" in html
    assert four["failed"].event_id in html
    assert "Redeliver selected deliveries" in html


def test_the_list_filters_by_status_and_by_event_type(operator, four):
    failed = operator.get(DELIVERIES, {"status__exact": "failed"})
    failures = operator.get(DELIVERIES, {"event_type": EventType.FAILED})
    successes = operator.get(DELIVERIES, {"event_type": EventType.SUCCEEDED})

    assert listed(failed) == {four["failed"].id}
    assert listed(failures) == {four["failed"].id}
    assert listed(successes) == {four[name].id for name in ("pending", "delivered", "disabled")}


def test_the_list_is_searched_by_event_id_url_and_owner(operator, four):
    def found(term: str) -> set[int]:
        return listed(operator.get(DELIVERIES, {"q": term}))

    assert found(four["delivered"].event_id) == {four["delivered"].id}
    assert found("/alice") == {four["delivered"].id}
    assert found("bob") == {four["failed"].id, four["disabled"].id}
    assert found("bob@example.com") == set()  # bob has no email


def test_the_delivery_page_shows_the_payload_and_each_attempt_escaped(operator, four):
    failed = four["failed"]

    response = operator.get(f"{DELIVERIES}{failed.id}/change/")

    assert response.status_code == 200
    html = response.content.decode()
    assert failed.event_id in html
    assert "&quot;filename&quot;: &quot;q3.pdf&quot;" in html  # the payload, indented JSON
    assert "Timed out after 10 s." in html
    assert "85 ms" in html  # a latency
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html  # the answer's head, escaped
    assert "<script>alert" not in html
    assert 'name="_save"' not in html


def test_deliveries_are_read_only_even_for_a_superuser(operator, four):
    failed = four["failed"]

    posted = operator.post(f"{DELIVERIES}{failed.id}/change/", {"status": "delivered"})

    assert posted.status_code == 403
    failed.refresh_from_db()
    assert failed.status == DeliveryStatus.FAILED
    assert operator.get(f"{DELIVERIES}add/").status_code == 403
    assert operator.get(f"{DELIVERIES}{failed.id}/delete/").status_code == 403


def test_a_staff_user_who_may_only_view_deliveries_cannot_redeliver(four):
    viewer = User.objects.create_user("vera", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_delivery"))
    client = Client()
    client.force_login(viewer)

    listing = client.get(DELIVERIES)
    detail = client.get(f"{DELIVERIES}{four['failed'].id}/change/")
    attempted = run_action(client, "redeliver_selected", [four["failed"]])

    assert listing.status_code == detail.status_code == 200
    assert "redeliver_selected" not in listing.content.decode()
    assert "Redelivered" not in attempted.content.decode()
    four["failed"].refresh_from_db()
    assert four["failed"].status == DeliveryStatus.FAILED


def test_the_delivery_page_tells_an_uploads_own_url_from_a_deleted_endpoints(operator, alice):
    own_event = event_for(alice)
    Job.objects.filter(id=own_event.job_id).update(webhook_url=PUBLIC)
    own = delivery_in(DeliveryStatus.FAILED, event=own_event)
    orphan = delivery_in(DeliveryStatus.DISABLED, event=event_for(alice), url=PUBLIC + "/gone")

    own_page = operator.get(f"{DELIVERIES}{own.id}/change/").content.decode()
    orphan_page = operator.get(f"{DELIVERIES}{orphan.id}/change/").content.decode()

    assert "the upload&#x27;s own webhook_url" in own_page
    assert "a deleted endpoint&#x27;s" in orphan_page
