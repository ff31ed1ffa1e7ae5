"""How a processing step says it failed: for good (PermanentError) or for now (TransientError).

The job layer turns a PermanentError into `failed` at once, and a TransientError into a
retry with backoff (honouring `retry_after`) until the attempts run out. Any other
exception counts as transient too. `code` is stable for clients; `detail` is for people.
"""


class PipelineError(Exception):
    """A failure a person can read (`detail`) with a code clients can rely on (`code`)."""

    code = "error"

    def __init__(self, detail: str, *, code: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        if code:
            self.code = code


class PermanentError(PipelineError):
    """Processing cannot succeed however often it is tried."""

    code = "permanent"


class NotAPdf(PermanentError):
    code = "not_a_pdf"


class Encrypted(PermanentError):
    code = "encrypted"


class Corrupt(PermanentError):
    code = "corrupt"


class NoText(PermanentError):
    code = "no_text"


class TooManyPages(PermanentError):
    code = "too_many_pages"


class TransientError(PipelineError):
    """Might succeed later: rate limits, 5xx answers, timeouts, lost connections.

    `retry_after` (seconds) is the earliest sensible retry, e.g. from a provider's
    Retry-After header; None lets the job layer's backoff decide.
    """

    code = "transient"

    def __init__(
        self, detail: str, *, code: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(detail, code=code)
        self.retry_after = retry_after


class RateLimited(TransientError):
    code = "rate_limited"


class ProviderUnavailable(TransientError):
    code = "provider_unavailable"


class Timeout(TransientError):
    """Something did not answer in time (the embedding provider; see ExtractTimeout for
    the reader)."""

    code = "timeout"


class ExtractTimeout(Timeout):
    """Reading ran past its wall-clock deadline on a machine too busy to give it its CPU
    time (a file that used its CPU time and did not finish is TooComplex at once). Worth
    one more try, not more: `for_good()` is the error for a second one in a row. A code
    of its own, so a provider's timeout before it does not count as the first."""

    code = "extract_timeout"

    def for_good(self) -> "TooComplex":
        return TooComplex(f"Reading the PDF timed out twice in a row. {self.detail}")


class TooComplex(PermanentError):
    """Reading the file needs more memory or CPU time than a worker may spend on one
    document."""

    code = "too_complex"


class NoSuchPage(PermanentError):
    """A page asked of the file (search/pipeline/render.py) that it does not have; `pages`
    says how many it has."""

    code = "page_not_found"

    def __init__(self, detail: str, *, pages: int) -> None:
        super().__init__(detail)
        self.pages = pages
