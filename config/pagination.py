"""The API's list paging: newest first, by cursor, so a page stays stable while rows are
added ahead of it; the admin's, counted from the planner's estimate past a size."""

import json
from functools import cached_property

from django.core.paginator import Paginator
from django.db.models import QuerySet
from rest_framework.pagination import CursorPagination


class NewestFirst(CursorPagination):
    ordering = "-created_at"
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


class EstimatedCountPaginator(Paginator):
    """The admin's changelist paging with a count that never scans: where the planner
    expects more than ESTIMATE_ABOVE rows, its estimate is the count ("about 6,000,000"
    pages) instead of a COUNT(*) that reads every row of a table with millions
    (paperless-ngx's document list took minutes for one). Smaller results are counted.

    The estimate comes from EXPLAIN, so a filter narrows it as it narrows the query; it
    is as fresh as the table's statistics (autovacuum's ANALYZE)."""

    ESTIMATE_ABOVE = 50_000

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if not isinstance(queryset, QuerySet):
            return super().count
        plan = json.loads(queryset.order_by().explain(format="json"))
        estimate = int(plan[0]["Plan"]["Plan Rows"])
        if estimate > self.ESTIMATE_ABOVE:
            return estimate
        return queryset.count()
