"""`{% load readable %}`: config/common/humanize.py's sizes in templates, so the page writes sizes
the way the upload refusals do ("10 MiB")."""

from django import template

from config.common import humanize

register = template.Library()


@register.filter
def size(count: int | None) -> str:
    return "" if count is None else humanize.size(count)
