"""What narrows the job admin's list: its side filters and the search by id prefix."""

import string
import uuid

from django.contrib import admin
from django.db.models import F, Q, QuerySet
from django.http import HttpRequest


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
        codes = (
            model_admin.get_queryset(request)
            .exclude(error_code="")
            .order_by("error_code")
            .values_list("error_code", flat=True)
            .distinct()
        )
        return [(code, code) for code in codes]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset.filter(error_code=self.value()) if self.value() else queryset


class ReplacedFilter(admin.SimpleListFilter):
    """A failed job whose owner has since retried the document (a newer job, which is now
    the document's current one) is history, not work for an operator."""

    title = "replaced by a newer job"
    parameter_name = "replaced"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return [("no", "No: the document's current job"), ("yes", "Yes")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        current = Q(document__current_job=F("id"))
        if self.value() == "no":
            return queryset.filter(current)
        if self.value() == "yes":
            return queryset.exclude(current)
        return queryset
