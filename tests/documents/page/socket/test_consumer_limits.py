"""The status socket's limits: it ends with its session, a user holds a bounded number of
them (counted in Redis, across processes), and a client cannot send it big messages."""

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from documents.page.socket import slots
from documents.page.socket.consumer import MESSAGE_TOO_BIG, TOO_MANY_SOCKETS, UNAUTHENTICATED
from jobs import notify
from jobs.models import JobStatus
from tests.documents.page.socket.test_consumer import session_headers, socket
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)

CHECK_SECONDS = 0.3


@pytest.fixture(autouse=True)
def quick_checks(settings):
    settings.INGEST_WS_SESSION_CHECK_SECONDS = CHECK_SECONDS


def signed_in(user: User) -> Client:
    """A browser's session for `user`, in the session store, as a login makes it."""
    client = Client()
    client.force_login(user)
    return client


async def closed_with(communicator: WebsocketCommunicator, within: float) -> int | None:
    """The close code the socket sends within `within` seconds (None: still open).

    receive_nothing, not receive_output with a timeout: the latter cancels the consumer
    when nothing comes. A lane's queue notice (jobs.queue_moved) may come meanwhile, for
    the job of the test or an earlier change in its lane: it is passed over."""
    deadline = time.monotonic() + within
    while True:
        if await communicator.receive_nothing(timeout=max(0.0, deadline - time.monotonic())):
            return None
        message = await communicator.receive_output(timeout=1)
        if message["type"] == "websocket.send" and message.get("text", "").startswith(
            '<div id="queue-moved"'
        ):
            continue
        assert message["type"] == "websocket.close", message
        return message.get("code")


def close_code_after(user: User, end_session, *, job=None) -> tuple[int | None, float]:
    """Open `user`'s socket, run `end_session` (a real change to the session or the user),
    and say how the socket closed and how long after the change."""
    client = signed_in(user)
    headers = session_headers(user, client=client)

    async def scenario() -> tuple[int | None, float]:
        communicator = socket(headers)
        assert (await communicator.connect())[0]
        # Still open over several checks while the session lives.
        assert await closed_with(communicator, within=3 * CHECK_SECONDS) is None
        await sync_to_async(end_session)(client)
        ended = time.monotonic()
        code = await closed_with(communicator, within=5)
        elapsed = time.monotonic() - ended
        if job is not None:  # a push after the end reaches nothing
            await sync_to_async(notify.job_changed)(job, status=JobStatus.SUCCEEDED)
            assert await communicator.receive_nothing(timeout=0.5)
        await communicator.disconnect()
        return code, elapsed

    return async_to_sync(scenario)()


def test_logging_out_closes_the_open_socket_within_the_check_interval(alice, broker):
    job = make_document(alice).current_job

    code, elapsed = close_code_after(alice, lambda client: client.logout(), job=job)

    assert code == UNAUTHENTICATED
    assert elapsed < CHECK_SECONDS + 1


def test_a_password_change_closes_the_sessions_sockets(alice):
    def change_password(client: Client) -> None:
        alice.set_password("a-new-password")
        alice.save()

    code, elapsed = close_code_after(alice, change_password)

    assert code == UNAUTHENTICATED
    assert elapsed < CHECK_SECONDS + 1


def test_deactivating_the_user_closes_their_sockets(alice):
    def deactivate(client: Client) -> None:
        User.objects.filter(pk=alice.pk).update(is_active=False)

    code, elapsed = close_code_after(alice, deactivate)

    assert code == UNAUTHENTICATED
    assert elapsed < CHECK_SECONDS + 1


async def open_sockets(headers: list, count: int) -> tuple[list, list[int | None]]:
    """Open `count` sockets one after another: the open ones, and each one's close code
    right after connecting (None: it stayed open)."""
    opened, codes = [], []
    for _ in range(count):
        communicator = socket(headers)
        connected, _ = await communicator.connect()
        assert connected
        code = await closed_with(communicator, within=0.2)
        codes.append(code)
        if code is None:
            opened.append(communicator)
    return opened, codes


async def close_all(communicators: list) -> None:
    for communicator in communicators:
        await communicator.disconnect()


# Each test runs its sockets in one event loop: a communicator's consumer is a task of the
# loop that opened it, and async_to_sync ends that loop (cancelling it) when it returns.


def test_a_user_gets_at_most_the_configured_number_of_sockets(alice, bob, settings):
    settings.INGEST_WS_MAX_PER_USER = 3
    alices, bobs_headers = session_headers(alice), session_headers(bob)

    async def scenario() -> None:
        opened, codes = await open_sockets(alices, 4)

        assert codes == [None, None, None, TOO_MANY_SOCKETS]
        assert slots.taken(alice.pk) == 3
        # Another user is not counted against Alice.
        bobs, bob_codes = await open_sockets(bobs_headers, 1)
        assert bob_codes == [None]
        # Closing one gives its slot back.
        await close_all(opened[:1])
        assert slots.taken(alice.pk) == 2
        again, again_codes = await open_sockets(alices, 1)
        assert again_codes == [None]
        await close_all(opened[1:] + again + bobs)
        assert slots.taken(alice.pk) == 0

    async_to_sync(scenario)()


def test_slots_of_a_process_that_died_free_themselves_when_their_leases_end(alice, settings):
    settings.INGEST_WS_MAX_PER_USER = 2
    # A process took two slots and died without giving them back.
    assert slots.take(alice.pk, "dead-process-1")
    assert slots.take(alice.pk, "dead-process-2")
    headers = session_headers(alice)

    async def scenario() -> None:
        _, refused = await open_sockets(headers, 1)
        await asyncio.sleep(slots.lease_seconds() + 0.2)
        opened, accepted = await open_sockets(headers, 1)

        assert refused == [TOO_MANY_SOCKETS]
        assert accepted == [None]
        await close_all(opened)

    async_to_sync(scenario)()


def test_an_open_socket_keeps_its_slot_beyond_one_lease(alice, settings):
    settings.INGEST_WS_MAX_PER_USER = 1
    headers = session_headers(alice)

    async def scenario() -> None:
        opened, codes = await open_sockets(headers, 1)
        await asyncio.sleep(slots.lease_seconds() + 0.5)  # renewed at each check
        _, later = await open_sockets(headers, 1)
        await close_all(opened)

        assert codes == [None]
        assert later == [TOO_MANY_SOCKETS]

    async_to_sync(scenario)()


def sent_and_closed(user: User, message: str | bytes) -> int | None:
    headers = session_headers(user)

    async def scenario() -> int | None:
        communicator = socket(headers)
        assert (await communicator.connect())[0]
        if isinstance(message, str):
            await communicator.send_to(text_data=message)
        else:
            await communicator.send_to(bytes_data=message)
        code = await closed_with(communicator, within=1)
        await communicator.disconnect()
        return code

    return async_to_sync(scenario)()


def test_a_big_client_message_closes_the_socket(alice, settings):
    settings.INGEST_WS_MAX_MESSAGE_BYTES = 4096

    assert sent_and_closed(alice, "x" * 4097) == MESSAGE_TOO_BIG
    assert sent_and_closed(alice, b"\0" * 5000) == MESSAGE_TOO_BIG
    assert sent_and_closed(alice, "é" * 2049) == MESSAGE_TOO_BIG  # 4098 bytes in UTF-8


def test_a_small_client_message_is_ignored(alice, settings):
    settings.INGEST_WS_MAX_MESSAGE_BYTES = 4096

    assert sent_and_closed(alice, "x" * 4096) is None
    assert sent_and_closed(alice, '{"HEADERS": {}}') is None
