"""The status websocket: signed-in owners hear about their own jobs, nobody else does."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from config.asgi import application
from jobs import notify
from jobs.models import JobStatus
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


SAME_ORIGIN = (b"origin", b"http://localhost")


def session_headers(user, origin: tuple[bytes, bytes] = SAME_ORIGIN) -> list:
    """The headers a page of `user` sends: its session cookie and its origin."""
    client = Client()
    client.force_login(user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}".encode()
    return [(b"cookie", cookie), origin]


def socket(headers: list) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, "/ws/status/", headers=headers)


def connect_result(headers: list) -> tuple[bool, int | str | None]:
    async def scenario() -> tuple[bool, int | str | None]:
        communicator = socket(headers)
        connected, code = await communicator.connect()
        await communicator.disconnect()
        return connected, code

    return async_to_sync(scenario)()


def test_an_anonymous_socket_is_refused():
    assert connect_result([SAME_ORIGIN]) == (False, 4401)


def test_a_socket_from_another_origin_is_refused(alice):
    connected, _ = connect_result(session_headers(alice, (b"origin", b"http://evil.example")))
    assert not connected


def test_a_signed_in_socket_receives_its_own_jobs_changes(alice, broker):
    job = make_document(alice).current_job
    headers = session_headers(alice)

    async def scenario() -> dict:
        communicator = socket(headers)
        connected, _ = await communicator.connect()
        assert connected
        # Autocommit: the on-commit push runs at once.
        await sync_to_async(notify.job_changed)(job, status=JobStatus.PROCESSING, done=1, total=4)
        message = await communicator.receive_json_from(timeout=5)
        await communicator.disconnect()
        return message

    assert async_to_sync(scenario)() == {
        "event": "job.changed",
        "job_id": str(job.id),
        "document_id": str(job.document_id),
        "status": "processing",
        "done": 1,
        "total": 4,
    }


def test_another_users_socket_does_not_receive_the_push(alice, bob, broker):
    job = make_document(alice).current_job
    alice_headers, bob_headers = session_headers(alice), session_headers(bob)

    async def scenario() -> tuple[dict, bool]:
        alices, bobs = socket(alice_headers), socket(bob_headers)
        assert (await alices.connect())[0]
        assert (await bobs.connect())[0]
        await sync_to_async(notify.job_changed)(job, status=JobStatus.SUCCEEDED, done=4, total=4)
        # Alice's page hearing it proves the push went out before Bob's silence is judged.
        heard = await alices.receive_json_from(timeout=5)
        silent = await bobs.receive_nothing(timeout=1)
        await alices.disconnect()
        await bobs.disconnect()
        return heard, silent

    heard, silent = async_to_sync(scenario)()
    assert heard["job_id"] == str(job.id)
    assert silent
