"""The status websocket: a signed-in page hears about its owner's documents, nothing more.

A push from a worker (jobs/notify.py) carries ids only. For each one the consumer reads the
document's row from the database and sends it as a server-rendered fragment that htmx's ws
extension swaps in place (`hx-swap-oob`), so a pushed row is exactly what a reload shows.
Pushes are best effort: the page re-reads its rows when the socket (re)connects and polls
while it is down.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from documents import rows
from jobs.notify import JobChanged, user_group

# 4000-4999 are free for applications; 4401 mirrors HTTP 401.
UNAUTHENTICATED = 4401


class StatusConsumer(AsyncWebsocketConsumer):
    group: str | None = None
    user_id: int | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        self.user_id = user.pk
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The page sends nothing that matters; ignore whatever arrives."""

    async def job_changed(self, event: JobChanged) -> None:
        # Only members of a user's group get these, and connect() sets user_id first.
        assert self.user_id is not None
        await self.send(text_data=await _rendered(self.user_id, event))


# A user's tabs in this process all get the same push at once: the first one reads and
# renders the row and the others reuse its answer, for a moment, instead of each running
# the same query. A later push (another status or progress) renders afresh.
REUSE_SECONDS = 1.0
_renders: dict[tuple, tuple[float, asyncio.Future[str]]] = {}


async def _rendered(user_id: int, event: JobChanged) -> str:
    key = (user_id, event["document_id"], event["status"], event["done"], event["total"])
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


# Rows are read on a small pool of threads (each with its own database connection), not on
# the one thread that every socket of the process would otherwise share.
ROW_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="status-rows")
_row_html = DatabaseSyncToAsync(row_fragment, thread_sensitive=False, executor=ROW_THREADS)
