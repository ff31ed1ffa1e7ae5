"""The status websocket: signed-in owners hear about their own jobs, nobody else does."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from config.ws_app import application
from documents.page.socket.consumer import row_fragment
from documents.services.deletion import delete_document
from jobs import notify, services
from jobs.models import Job, JobStatus
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


# A page on http://localhost whose socket is on the same origin (INGEST_WS_URL's way).
SAME_ORIGIN = (b"origin", b"http://localhost")
HOST = (b"host", b"localhost")


def session_headers(
    user, origin: tuple[bytes, bytes] = SAME_ORIGIN, client=None, host: tuple = HOST
) -> list:
    """The headers a page of `user` sends: its session cookie, host and origin."""
    if client is None:
        client = Client()
        client.force_login(user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}".encode()
    return [(b"cookie", cookie), host, origin]


def socket(headers: list) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, "/ws/status/", headers=headers)


async def next_row(communicator: WebsocketCommunicator) -> str:
    """The next pushed row, past any queue notice: the changes these tests make move the
    lane too (jobs.queue_moved), and that notice may come before or after a row."""
    while True:
        message = await communicator.receive_from(timeout=5)
        if not message.startswith('<div id="queue-moved"'):
            return message


def connect_result(headers: list) -> tuple[bool, int | str | None]:
    async def scenario() -> tuple[bool, int | str | None]:
        communicator = socket(headers)
        connected, code = await communicator.connect()
        await communicator.disconnect()
        return connected, code

    return async_to_sync(scenario)()


def test_an_anonymous_socket_is_refused():
    assert connect_result([HOST, SAME_ORIGIN]) == (False, 4401)


def test_a_socket_from_another_origin_is_refused(alice):
    connected, _ = connect_result(session_headers(alice, (b"origin", b"http://evil.example")))
    assert not connected


def pushed_html(user, job, **change) -> str:
    """What `user`'s page receives when a worker announces a change of `job`."""
    headers = session_headers(user)

    async def scenario() -> str:
        communicator = socket(headers)
        connected, _ = await communicator.connect()
        assert connected
        # Autocommit: the on-commit push runs at once.
        await sync_to_async(notify.job_changed)(job, **change)
        message = await next_row(communicator)
        await communicator.disconnect()
        return message

    return async_to_sync(scenario)()


def test_a_signed_in_socket_receives_its_documents_row_as_read_from_the_database(alice, broker):
    document = make_document(alice, filename="annual.pdf")
    Job.objects.filter(id=document.current_job_id).update(
        status=JobStatus.PROCESSING, stage="embedding", progress_done=1, progress_total=4
    )

    html = pushed_html(alice, document.current_job, status=JobStatus.PROCESSING, done=1, total=4)

    assert html.strip().startswith(f'<tr id="doc-{document.id}"')
    assert 'hx-swap-oob="true"' in html
    assert 'data-status="processing"' in html
    assert "annual.pdf" in html
    assert "Embedding chunks 1 / 4" in html


def test_a_pushed_row_shows_the_pages_read_while_the_file_is_read(alice, broker, monkeypatch):
    monkeypatch.setattr(notify, "PROGRESS_PUSH_INTERVAL", 0)  # both pushes go
    document = make_document(alice)
    job = document.current_job
    Job.objects.filter(id=job.id).update(
        status=JobStatus.PROCESSING, stage="extracting", pages_done=12, pages_total=117
    )

    # Each page count is a push of its own, never a reuse of the row rendered before it.
    first = pushed_html(
        alice,
        job,
        status="processing",
        progress=True,
        stage="extracting",
        pages_done=12,
        pages_total=117,
    )
    Job.objects.filter(id=job.id).update(pages_done=40)
    second = pushed_html(
        alice,
        job,
        status="processing",
        progress=True,
        stage="extracting",
        pages_done=40,
        pages_total=117,
    )

    assert 'data-stage="extracting"' in first
    assert "Reading pages 12 / 117" in first
    assert "Reading pages 40 / 117" in second


def test_the_pushed_row_is_the_databases_truth_not_the_messages(alice, broker):
    document = make_document(alice)
    Job.objects.filter(id=document.current_job_id).update(status=JobStatus.SUCCEEDED)

    # A late, stale push (say, a progress message sent before the job finished).
    html = pushed_html(alice, document.current_job, status=JobStatus.PROCESSING, done=1, total=4)

    assert 'data-status="succeeded"' in html


def test_a_deleted_document_is_removed_from_the_page(alice, broker):
    document = make_document(alice)
    job, document_id = document.current_job, document.id
    document.delete()

    html = pushed_html(alice, job, status=JobStatus.CANCELLED)

    assert html == f'<tr id="doc-{document_id}" hx-swap-oob="delete"></tr>'


def test_another_users_document_never_renders_on_a_socket(alice, bob):
    theirs = make_document(bob, filename="private.pdf")

    html = row_fragment(alice.pk, theirs.id)

    assert "private.pdf" not in html
    assert 'hx-swap-oob="delete"' in html


def test_another_users_socket_does_not_receive_the_push(alice, bob, broker):
    job = make_document(alice).current_job
    alice_headers, bob_headers = session_headers(alice), session_headers(bob)

    async def scenario() -> tuple[str, bool]:
        alices, bobs = socket(alice_headers), socket(bob_headers)
        assert (await alices.connect())[0]
        assert (await bobs.connect())[0]
        await sync_to_async(notify.job_changed)(job, status=JobStatus.SUCCEEDED, done=4, total=4)
        # Alice's page hearing it proves the push went out before Bob's silence is judged.
        heard = await next_row(alices)
        silent = await bobs.receive_nothing(timeout=1)
        await alices.disconnect()
        await bobs.disconnect()
        return heard, silent

    heard, silent = async_to_sync(scenario)()
    assert f"doc-{job.document_id}" in heard
    assert silent


def next_message(user, action) -> str:
    """What `user`'s page receives after `action` runs (in autocommit: pushes go at once)."""
    headers = session_headers(user)

    async def scenario() -> str:
        communicator = socket(headers)
        connected, _ = await communicator.connect()
        assert connected
        await sync_to_async(action)()
        message = await next_row(communicator)
        await communicator.disconnect()
        return message

    return async_to_sync(scenario)()


def test_changes_made_outside_a_worker_reach_the_page(alice, broker):
    """Operators' retries and cancels, sweeps and deletions: every state change pushes."""
    failed = make_document(alice)
    Job.objects.filter(id=failed.current_job_id).update(status=JobStatus.FAILED)
    queued = make_document(alice)
    gone = make_document(alice)

    retried = next_message(alice, lambda: services.retry_jobs(job_ids=[failed.current_job_id]))
    cancelled = next_message(alice, lambda: services.cancel_jobs(job_ids=[queued.current_job_id]))
    deleted = next_message(alice, lambda: delete_document(document_id=gone.id, owner_id=alice.pk))

    assert f"doc-{failed.id}" in retried
    assert 'data-status="queued"' in retried
    assert f"doc-{queued.id}" in cancelled
    assert 'data-status="cancelled"' in cancelled
    assert deleted == f'<tr id="doc-{gone.id}" hx-swap-oob="delete"></tr>'


def test_a_queue_notice_reaches_the_page_as_an_element_that_asks_it_to_read_its_rows(alice):
    headers = session_headers(alice)

    async def scenario() -> str:
        communicator = socket(headers)
        assert (await communicator.connect())[0]
        await get_channel_layer().group_send(
            notify.user_group(alice.pk), {"type": "queue.moved", "lane": "batch"}
        )
        message = await communicator.receive_from(timeout=5)
        await communicator.disconnect()
        return message

    assert async_to_sync(scenario)() == '<div id="queue-moved" data-lane="batch" hidden></div>'
