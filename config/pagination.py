"""The API's list paging: newest first, by cursor, so a page stays stable while rows are
added ahead of it."""

from rest_framework.pagination import CursorPagination


class NewestFirst(CursorPagination):
    ordering = "-created_at"
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
