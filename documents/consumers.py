"""The status websocket: a signed-in page hears about its owner's documents, nothing more.

A push from a worker (jobs/notify.py) carries ids only. For each one the consumer reads the
document's row from the database and sends it as a server-rendered fragment that htmx's ws
extension swaps in place (`hx-swap-oob`), so a pushed row is exactly what a reload shows.
Pushes are best effort: the page re-reads its rows when the socket (re)connects and polls
while it is down.
"""

from __future__ import annotations

import uuid

from channels.db import database_sync_to_async
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
        html = await self._row_html(uuid.UUID(event["document_id"]))
        await self.send(text_data=html)

    @database_sync_to_async
    def _row_html(self, document_id: uuid.UUID) -> str:
        return row_fragment(self.user_id, document_id)


def row_fragment(user_id: int | None, document_id: uuid.UUID) -> str:
    """The document's row as an out-of-band swap, or its removal when it is gone (or
    never was this user's: the answer is the same, so it reveals nothing)."""
    document = rows.owned_documents(user_id).filter(id=document_id).first()
    if document is None:
        return f'<tr id="doc-{document_id}" hx-swap-oob="delete"></tr>'
    return render_to_string("documents/_row.html", {"row": rows.row_for(document), "oob": True})
