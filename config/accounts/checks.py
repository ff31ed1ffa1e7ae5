"""Sign-in needs one secret key for every process: a system check says when there is none."""

from collections.abc import Sequence

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register


@register(Tags.security)
def check_secret_key_is_shared(
    app_configs: Sequence[object] | None = None, **kwargs: object
) -> list[CheckMessage]:
    """A warning when neither DJANGO_SECRET_KEY nor the data directory's key file is there:
    each process then signs with a key of its own, so a session made by one web worker
    is refused by the next, and a restart signs everyone out."""
    if not settings.SECRET_KEY_IS_PER_PROCESS:
        return []
    return [
        Warning(
            "No secret key is shared between processes: DJANGO_SECRET_KEY is unset and "
            f"{settings.DATA_DIR / 'secret_key'} does not exist, so each process signs "
            "sessions with a key of its own.",
            hint="Set DJANGO_SECRET_KEY (in production), or run `manage.py embedded start` "
            "(make run's first step), which keeps one in the data directory.",
            id="accounts.W001",
        )
    ]
