"""The one way documents says no to a request: admission's limits, quotas and an upload's
own mistakes alike. The API answers it as {"code", "detail"} with its status (and
Retry-After); the page shows its detail as a notice."""


class Refusal(Exception):
    """A request refused with `http_status` and a stable `code`; `detail` says why for a
    person, `retry_after` when to come back (None when no wait helps, as for a quota)."""

    def __init__(
        self, *, http_status: int, code: str, detail: str, retry_after: int | None = None
    ) -> None:
        super().__init__(detail)
        self.http_status = http_status
        self.code = code
        self.detail = detail
        self.retry_after = retry_after
