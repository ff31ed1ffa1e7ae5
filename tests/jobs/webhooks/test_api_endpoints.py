"""/api/webhooks/: a user's endpoints, owner-scoped, with the secret shown once."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from rest_framework.test import APIClient

from config.accounts.tokens import issue_token
from jobs.webhooks import endpoints
from jobs.webhooks.models import (
    Delivery,
    DeliveryStatus,
    Endpoint,
    Event,
    EventType,
    SigningSecret,
    signing_secrets,
)
from tests.factories import make_document

pytestmark = pytest.mark.django_db

WEBHOOKS = "/api/webhooks/"
PUBLIC = "https://93.184.215.14/hook"  # a public literal address: checked, never called
BOTH = ["document.succeeded", "document.failed"]


def register(client: APIClient, **body) -> dict:
    response = client.post(WEBHOOKS, {"url": PUBLIC, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


# --------------------------------------------------------------------------- create


def test_registering_an_endpoint_answers_201_with_its_secret(alice_client, alice):
    response = alice_client.post(
        WEBHOOKS, {"url": PUBLIC, "events": ["document.failed"]}, format="json"
    )

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {
        "id",
        "url",
        "events",
        "active",
        "disabled_reason",
        "created_at",
        "secret",
    }
    assert (body["url"], body["events"], body["active"]) == (PUBLIC, ["document.failed"], True)
    endpoint = Endpoint.objects.get(id=body["id"])
    assert endpoint.owner == alice
    assert body["secret"] == endpoint.secret
    assert body["secret"].startswith("whsec_")


def test_an_endpoint_hears_both_event_types_unless_told_otherwise(alice_client):
    assert register(alice_client)["events"] == BOTH


def test_events_are_kept_in_one_order_without_repeats(alice_client):
    events = ["document.failed", "document.succeeded", "document.failed"]

    body = register(alice_client, events=events)

    assert body["events"] == BOTH


def test_the_secret_is_never_shown_again(alice_client):
    created = register(alice_client)

    listing = alice_client.get(WEBHOOKS).json()
    detail = alice_client.get(f"{WEBHOOKS}{created['id']}/").json()

    assert "secret" not in listing["results"][0]
    assert "secret" not in detail
    assert created["secret"] not in str(listing) + str(detail)
    assert detail["url"] == PUBLIC


@pytest.mark.parametrize(
    "url",
    [
        "ftp://93.184.215.14/hook",
        "http://127.0.0.1:8000/hook",
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data/",
        "https://user:password@93.184.215.14/hook",
        "not a url",
    ],
)
def test_a_url_a_webhook_may_not_use_is_refused_with_its_reason(alice_client, url):
    response = alice_client.post(WEBHOOKS, {"url": url}, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_webhook_url"
    assert body["detail"]
    assert not Endpoint.objects.exists()


def test_a_local_url_refused_names_the_setting_that_allows_it(alice_client, settings):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = False

    response = alice_client.post(WEBHOOKS, {"url": "http://127.0.0.1:9000/hook"}, format="json")

    assert response.status_code == 400
    assert "INGEST_WEBHOOK_ALLOW_PRIVATE=1" in response.json()["detail"]


def test_an_http_url_refused_names_the_setting_that_allows_it(alice_client, settings):
    settings.INGEST_HTTPS = True
    settings.INGEST_WEBHOOK_ALLOW_HTTP = False

    response = alice_client.post(WEBHOOKS, {"url": "http://93.184.215.14/hook"}, format="json")

    assert response.status_code == 400
    assert "INGEST_WEBHOOK_ALLOW_HTTP=1" in response.json()["detail"]


def test_a_local_url_is_accepted_where_private_addresses_are_allowed(alice_client, settings):
    settings.INGEST_WEBHOOK_ALLOW_PRIVATE = True

    assert register(alice_client, url="http://127.0.0.1:8000/hook")["url"].startswith(
        "http://127.0.0.1"
    )


def test_an_unknown_event_type_is_refused_by_name(alice_client):
    response = alice_client.post(
        WEBHOOKS, {"url": PUBLIC, "events": ["document.failed", "document.deleted"]}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_events"
    assert "'document.deleted'" in response.json()["detail"]
    assert "document.succeeded, document.failed" in response.json()["detail"]
    assert not Endpoint.objects.exists()


def test_an_empty_list_of_events_is_refused(alice_client):
    response = alice_client.post(WEBHOOKS, {"url": PUBLIC, "events": []}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_events"
    assert "may not be empty" in response.json()["detail"]


def test_events_given_as_one_string_are_refused_as_invalid_input(alice_client):
    response = alice_client.post(
        WEBHOOKS, {"url": PUBLIC, "events": "document.failed"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "events" in response.json()["fields"]


def test_a_missing_url_is_refused_as_invalid_input(alice_client):
    response = alice_client.post(WEBHOOKS, {"events": BOTH}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "url" in response.json()["fields"]


# --------------------------------------------------------------------------- who sees what


def test_the_list_is_the_owners_own_newest_first_in_pages(alice_client, bob_client):
    first = register(alice_client, url=PUBLIC + "/1")
    second = register(alice_client, url=PUBLIC + "/2")
    register(bob_client, url=PUBLIC + "/bob")

    page = alice_client.get(WEBHOOKS, {"page_size": 1}).json()
    following = alice_client.get(page["next"]).json()

    assert [e["id"] for e in page["results"]] == [second["id"]]
    assert [e["id"] for e in following["results"]] == [first["id"]]
    assert following["next"] is None


def test_another_owners_endpoint_is_not_found_and_not_deleted(alice_client, bob_client):
    bobs = register(bob_client)

    assert alice_client.get(f"{WEBHOOKS}{bobs['id']}/").status_code == 404
    deleted = alice_client.delete(f"{WEBHOOKS}{bobs['id']}/")

    assert deleted.status_code == 404
    assert deleted.json()["code"] == "not_found"
    assert Endpoint.objects.filter(id=bobs["id"]).exists()


def test_anonymous_callers_are_refused(client):
    assert client.get(WEBHOOKS).status_code in (401, 403)
    assert client.post(WEBHOOKS, {"url": PUBLIC}).status_code in (401, 403)
    assert client.get(f"{WEBHOOKS}signing-secret/").status_code in (401, 403)
    assert not Endpoint.objects.exists()


def test_a_token_is_enough_to_register_an_endpoint(alice):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(alice).key}")

    assert register(client)["url"] == PUBLIC


# --------------------------------------------------------------------------- delete


def delivery_to(endpoint: Endpoint, status: str) -> Delivery:
    document = make_document(endpoint.owner)
    event = Event.objects.create(
        type=EventType.SUCCEEDED,
        owner=endpoint.owner,
        document_id=document.id,
        job_id=document.current_job_id,
        payload={"type": EventType.SUCCEEDED},
    )
    return Delivery.objects.create(
        event=event, owner=endpoint.owner, endpoint=endpoint, url=endpoint.url, status=status
    )


def test_deleting_an_endpoint_disables_what_it_had_pending_and_keeps_its_history(alice_client):
    endpoint = Endpoint.objects.get(id=register(alice_client)["id"])
    pending = delivery_to(endpoint, DeliveryStatus.PENDING)
    delivered = delivery_to(endpoint, DeliveryStatus.DELIVERED)

    response = alice_client.delete(f"{WEBHOOKS}{endpoint.id}/")

    assert response.status_code == 204
    assert not Endpoint.objects.filter(id=endpoint.id).exists()
    pending.refresh_from_db()
    delivered.refresh_from_db()
    assert (pending.status, pending.endpoint_id, pending.url) == (
        DeliveryStatus.DISABLED,
        None,
        PUBLIC,
    )
    assert pending.last_error == "The endpoint was deleted."
    assert (delivered.status, delivered.endpoint_id) == (DeliveryStatus.DELIVERED, None)
    assert alice_client.get(f"{WEBHOOKS}{endpoint.id}/").status_code == 404


# --------------------------------------------------------------------------- signing secret


def test_a_read_never_makes_a_signing_secret(alice_client, alice):
    response = alice_client.get(f"{WEBHOOKS}signing-secret/")

    assert response.status_code == 404
    assert response.json()["code"] == "no_signing_secret"
    assert not SigningSecret.objects.filter(owner=alice).exists()


def test_a_secret_that_a_delivery_made_first_is_the_one_the_api_shows(alice_client, alice):
    # The deliverer signs an upload's own URL through the same accessor, on first use.
    made_by_delivery = endpoints.signing_secret(owner_id=alice.pk)

    shown = alice_client.get(f"{WEBHOOKS}signing-secret/").json()

    assert shown == {"secret": made_by_delivery.secret, "previous_valid_until": None}
    assert SigningSecret.objects.filter(owner=alice).count() == 1


def test_rotating_keeps_the_old_secret_signing_for_the_grace_window(alice_client, alice):
    before = alice_client.post(f"{WEBHOOKS}signing-secret/").json()  # makes the first
    assert before["previous_valid_until"] is None

    rotated = alice_client.post(f"{WEBHOOKS}signing-secret/")

    assert rotated.status_code == 200
    after = rotated.json()
    assert after["secret"].startswith("whsec_")
    assert after["secret"] != before["secret"]
    assert after["previous_valid_until"] is not None
    stored = SigningSecret.objects.get(owner=alice)
    assert signing_secrets(stored) == (after["secret"], before["secret"])
    assert alice_client.get(f"{WEBHOOKS}signing-secret/").json() == after


def test_past_the_grace_window_only_the_new_secret_signs(alice, settings):
    settings.INGEST_WEBHOOK_SECRET_GRACE_SECONDS = 0
    endpoints.rotate_signing_secret(owner_id=alice.pk)

    rotated = endpoints.rotate_signing_secret(owner_id=alice.pk)

    assert signing_secrets(rotated) == (rotated.secret,)


def test_an_endpoints_secret_can_be_rotated_by_its_owner_only(alice_client, bob_client):
    created = register(alice_client)
    path = f"{WEBHOOKS}{created['id']}/rotate-secret/"

    assert bob_client.post(path).status_code == 404
    rotated = alice_client.post(path)

    assert rotated.status_code == 200
    endpoint = Endpoint.objects.get(id=created["id"])
    assert endpoint.secret == rotated.json()["secret"] != created["secret"]
    assert signing_secrets(endpoint) == (endpoint.secret, created["secret"])


def test_each_owner_has_a_signing_secret_of_their_own(alice_client, bob_client):
    alices = alice_client.post(f"{WEBHOOKS}signing-secret/").json()["secret"]
    bobs = bob_client.post(f"{WEBHOOKS}signing-secret/").json()["secret"]
    bob_client.post(f"{WEBHOOKS}signing-secret/")

    assert alices != bobs
    assert alice_client.get(f"{WEBHOOKS}signing-secret/").json()["secret"] == alices


# --------------------------------------------------------------------------- limits


def test_an_owner_may_have_the_limits_worth_of_endpoints_and_no_more(
    alice_client, bob_client, settings
):
    settings.INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER = 3
    for n in range(3):
        register(alice_client, url=f"{PUBLIC}/{n}")

    response = alice_client.post(WEBHOOKS, {"url": f"{PUBLIC}/3"}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "too_many_endpoints"
    assert "(3)" in response.json()["detail"]
    assert Endpoint.objects.count() == 3
    register(bob_client, url=f"{PUBLIC}/3")  # another owner's count is their own


@pytest.mark.parametrize("again", [PUBLIC, PUBLIC.replace("https", "HTTPS"), PUBLIC + " "])
def test_a_second_endpoint_with_the_same_url_is_refused(alice_client, bob_client, again):
    register(alice_client)

    response = alice_client.post(WEBHOOKS, {"url": again}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "duplicate_endpoint"
    assert Endpoint.objects.count() == 1
    register(bob_client)  # the same URL is another owner's to register too


@pytest.mark.django_db(transaction=True)
def test_endpoints_registered_at_once_keep_to_the_limit(alice, settings):
    """Twenty requests at once for one owner: the lock per owner counts them in turn."""
    settings.INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER = 5

    def create(n: int) -> str:
        try:
            endpoints.create(owner=alice, url=f"{PUBLIC}/{n}")
            return "created"
        except endpoints.EndpointConflict as exc:
            return exc.code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=10) as pool:
        outcomes = list(pool.map(create, range(20)))

    assert outcomes.count("created") == 5
    assert Endpoint.objects.filter(owner=alice).count() == 5
