"""The status websocket: a signed-in page hears about its owner's documents, nothing more.

A push from a worker (jobs/notify.py) carries ids only. For each one the consumer reads the
document's row from the database and sends it as a server-rendered fragment that htmx's ws
extension swaps in place (`hx-swap-oob`), so a pushed row is exactly what a reload shows.
A lane's queue notice (jobs/queue_moved.py) is passed on as a small element that tells the
page to read its rows again, as its polling would.
Pushes are best effort: the page re-reads its rows when the socket (re)connects and polls
while it is down.

A socket lives only as long as its session: every INGEST_WS_SESSION_CHECK_SECONDS it asks
whether the session still signs its user in (documents/page/socket/session.py) and closes when
not. A user holds at most INGEST_WS_MAX_PER_USER sockets across the `ws` processes
(documents/page/socket/slots.py), and a client message beyond INGEST_WS_MAX_MESSAGE_BYTES closes
the socket. The origin check is config/http/ws_origin.py's, in front of this consumer.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import SyncToAsync
from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.html import format_html

from documents.page import rows
from documents.page.socket import session, slots
from jobs.notify import JobChanged, user_group
from jobs.queue_moved import QueueMoved

log = logging.getLogger(__name__)

# 4000-4999 are free for applications; 4401 mirrors HTTP 401 (also a session that ended),
# 4429 HTTP 429. 1009 is the protocol's own "message too big".
UNAUTHENTICATED = 4401
TOO_MANY_SOCKETS = 4429
MESSAGE_TOO_BIG = 1009


class StatusConsumer(AsyncWebsocketConsumer):
    group: str | None = None
    user_id: int | None = None
    session_key: str | None = None
    holds_slot = False
    ended = False
    watcher: asyncio.Task | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        self.user_id = user.pk
        if not await _take_slot(user.pk, self.channel_name):
            # Accepted, then closed: a refused handshake would reach the page as 1006, and
            # htmx would retry; with 4429 it stops, and the page polls.
            await self.accept()
            await self._end(TOO_MANY_SOCKETS)
            return
        self.holds_slot = True
        self.session_key = self.scope["session"].session_key
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.watcher = asyncio.ensure_future(self._watch())

    async def disconnect(self, code: int) -> None:
        if self.watcher is not None and self.watcher is not asyncio.current_task():
            self.watcher.cancel()
        await self._leave()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The page sends nothing that matters: ignore what arrives, unless it is big."""
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        if size > settings.INGEST_WS_MAX_MESSAGE_BYTES:
            await self._end(MESSAGE_TOO_BIG)

    async def job_changed(self, event: JobChanged) -> None:
        if self.ended:
            return
        # Only members of a user's group get these, and connect() sets user_id first.
        assert self.user_id is not None
        await self.send(text_data=await _rendered(self.user_id, event))

    async def queue_moved(self, event: QueueMoved) -> None:
        """Jobs of a lane where this user has jobs queued started, ended or joined it
        (jobs.queue_moved, at most about once a second): the page reads its rows again,
        for their places and for documents it does not show yet. No row is read here."""
        if self.ended:
            return
        await self.send(text_data=queue_moved_html(event["lane"]))

    async def _watch(self) -> None:
        """Close the socket once its session no longer signs its user in; renew the
        socket's slot meanwhile. The first check comes at a random point of the first
        interval, so sockets opened together do not check together forever after."""
        assert self.user_id is not None
        interval = settings.INGEST_WS_SESSION_CHECK_SECONDS
        await asyncio.sleep(interval * random.uniform(0.5, 1.0))
        while not self.ended:
            try:
                if not await _take_slot(self.user_id, self.channel_name):
                    await self._end(TOO_MANY_SOCKETS)  # its lease ended, and others took it
                    return
                if not await _still_signed_in(self.session_key, self.user_id):
                    await self._end(UNAUTHENTICATED)
                    return
            except Exception:
                # The database away, say: keep the socket, ask again next time.
                log.warning("socket session check failed", exc_info=True)
            await asyncio.sleep(interval)

    async def _end(self, code: int) -> None:
        """Stop pushes at once and close with `code`."""
        self.ended = True
        await self._leave()
        await self.close(code=code)

    async def _leave(self) -> None:
        if self.group is not None:
            group, self.group = self.group, None
            await self.channel_layer.group_discard(group, self.channel_name)
        if self.holds_slot:
            self.holds_slot = False
            assert self.user_id is not None
            await _release_slot(self.user_id, self.channel_name)


# A user's tabs in this process all get the same push at once: the first one reads and
# renders the row and the others reuse its answer, for a moment, instead of each running
# the same query. A later push (another status, stage, page or chunk count) renders afresh.
REUSE_SECONDS = 1.0
_renders: dict[tuple, tuple[float, asyncio.Future[str]]] = {}


async def _rendered(user_id: int, event: JobChanged) -> str:
    key = (
        user_id,
        event["document_id"],
        event["status"],
        event.get("stage", ""),
        event.get("pages_done", 0),
        event["done"],
        event["total"],
    )
    now = time.monotonic()
    cached = _renders.get(key)
    if cached is not None and now - cached[0] < REUSE_SECONDS:
        return await asyncio.shield(cached[1])
    if len(_renders) > 10_000:
        _forget_old_renders(now)
    render = asyncio.ensure_future(_row_html(user_id, uuid.UUID(event["document_id"])))
    _renders[key] = (now, render)
    try:
        return await asyncio.shield(render)
    except Exception:
        _renders.pop(key, None)
        raise


def _forget_old_renders(now: float) -> None:
    for key, (at, _) in list(_renders.items()):
        if now - at >= REUSE_SECONDS:
            del _renders[key]


def row_fragment(user_id: int, document_id: uuid.UUID) -> str:
    """The document's row as an out-of-band swap, or its removal when it is gone (or
    never was this user's: the answer is the same, so it reveals nothing)."""
    document = rows.owned_documents(user_id).filter(id=document_id).first()
    if document is None:
        return f'<tr id="doc-{document_id}" hx-swap-oob="delete"></tr>'
    return render_to_string("documents/_row.html", {"row": rows.row_for(document), "oob": True})


def queue_moved_html(lane: str) -> str:
    """The notice as the page hears it. static/js/page.js takes it before htmx swaps
    anything and reads the rows again; an older page, which knows no such element, finds
    nothing to swap and ignores it."""
    return format_html('<div id="queue-moved" data-lane="{}" hidden></div>', lane)


# Rows are read on a small pool of threads (each with its own database connection), not on
# the one thread that every socket of the process would otherwise share.
ROW_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="status-rows")
_row_html = DatabaseSyncToAsync(row_fragment, thread_sensitive=False, executor=ROW_THREADS)

# Sessions and slots are checked on the same pool, off the event loop.
_still_signed_in = DatabaseSyncToAsync(
    session.still_signed_in, thread_sensitive=False, executor=ROW_THREADS
)
_take_slot = SyncToAsync(slots.take, thread_sensitive=False, executor=ROW_THREADS)
_release_slot = SyncToAsync(slots.release, thread_sensitive=False, executor=ROW_THREADS)
