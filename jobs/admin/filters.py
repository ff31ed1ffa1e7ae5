"""What narrows the job admin's list: its side filters and the search by id prefix."""

import string
import uuid

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from jobs.models import is_current


def id_range(term: str) -> tuple[uuid.UUID, uuid.UUID] | None:
    """The ids starting with `term` (at least 8 hex digits, dashes allowed) as a range.

    The list shows ids cut to 8 characters and operators paste those; a range on the
    primary key is answered by its index, where matching the id as text would scan.
    A whole id is just the longest prefix.
    """
    digits = term.strip().replace("-", "").lower()
    if not 8 <= len(digits) <= 32 or any(char not in string.hexdigits for char in digits):
        return None
    return uuid.UUID(digits.ljust(32, "0")), uuid.UUID(digits.ljust(32, "f"))


class ErrorCodeFilter(admin.SimpleListFilter):
    """Only the codes some job on this page has, so no choice leads to an empty list."""

    title = "error code"
    parameter_name = "error_code"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        # One index seek a code, each for the first code after the last (a loose scan of
        # the job_error_code index): a DISTINCT read every failed job, 0.3 s at 60,000.
        coded = model_admin.get_queryset(request).exclude(error_code="").order_by("error_code")
        codes: list[str] = []
        while (code := _first_code(coded, after=codes[-1] if codes else None)) is not None:
            codes.append(code)
        return [(code, code) for code in codes]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset.filter(error_code=self.value()) if self.value() else queryset


def _first_code(coded: QuerySet, *, after: str | None) -> str | None:
    jobs = coded if after is None else coded.filter(error_code__gt=after)
    return jobs.values_list("error_code", flat=True).first()


class ReplacedFilter(admin.SimpleListFilter):
    """A failed job whose owner has since retried the document (a newer job, which is now
    the document's current one) is history, not work for an operator."""

    title = "replaced by a newer job"
    parameter_name = "replaced"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return [("no", "No: the document's current job"), ("yes", "Yes")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "no":
            return queryset.filter(is_current())
        if self.value() == "yes":
            return queryset.exclude(is_current())
        return queryset
