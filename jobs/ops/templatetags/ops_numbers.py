"""`{% load ops_numbers %}`: config/common/humanize.py's durations in the ops dashboard, so its
ages read like the rest of the service's ("4 s", "about 3 minutes")."""

from datetime import datetime

from django import template
from django.utils import timezone

from config.common import humanize

register = template.Library()


@register.filter
def duration(seconds: float | None, decimals: int = 0) -> str:
    """ "4 s" ("2.5 s" with `duration:1`), "about 3 minutes"."""
    return "" if seconds is None else humanize.duration(seconds, decimals=decimals)


@register.filter
def age(moment: datetime | None) -> str:
    """How long ago `moment` was, as a duration ("12 s", "about 2 minutes")."""
    if moment is None:
        return "never"
    return humanize.duration(max(0.0, (timezone.now() - moment).total_seconds()))
