"""The status websocket: a signed-in page hears about its owner's jobs, nothing more.

Pushes are best effort (see jobs/notify.py): the page re-reads the state from the database
when it (re)connects, so the consumer only authenticates and keeps group membership.
"""

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from jobs.notify import JobChanged, user_group

# 4000-4999 are free for applications; 4401 mirrors HTTP 401.
UNAUTHENTICATED = 4401


class StatusConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def job_changed(self, event: JobChanged) -> None:
        fields = {key: value for key, value in event.items() if key != "type"}
        await self.send_json({"event": "job.changed", **fields})
