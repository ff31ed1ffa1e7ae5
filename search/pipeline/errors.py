class PermanentError(Exception):
    """Processing cannot succeed however often it is tried; `code` is stable for clients."""

    code = "permanent"

    def __init__(self, detail: str, *, code: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        if code:
            self.code = code


class NotAPdf(PermanentError):
    code = "not_a_pdf"


class Encrypted(PermanentError):
    code = "encrypted"


class Corrupt(PermanentError):
    code = "corrupt"


class NoText(PermanentError):
    code = "no_text"
