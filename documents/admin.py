from collections.abc import Sequence
from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from config.http.pagination import EstimatedCountPaginator
from documents.models import ALL_VERSIONS, Document, EmbeddingChange
from documents.services.deletion import delete_document
from documents.upkeep.erasure import erase_user
from jobs.admin.display import status_badge
from jobs.models import Job


@admin.register(EmbeddingChange)
class EmbeddingChangeAdmin(admin.ModelAdmin):
    """Re-embeddings after the configured embedding changed, as the sweeper keeps them
    (documents/upkeep/embedding_change.py): where each stands. Read-only: the sweeper
    writes them."""

    list_display = ["signature", "started_at", "done", "total", "failed", "finished_at", "floor"]
    readonly_fields = [field.name for field in EmbeddingChange._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(
        self, request: HttpRequest, obj: EmbeddingChange | None = None
    ) -> bool:
        return False

    def has_delete_permission(
        self, request: HttpRequest, obj: EmbeddingChange | None = None
    ) -> bool:
        return False


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    """Documents, read-only: they arrive through the upload API, and a form save would
    write back a row a worker may have changed since. Deleting goes through the same
    service as the API, so the stored files go too."""

    list_display = ["filename", "owner", "status", "version", "size", "created_at"]
    list_select_related = ["owner", "current_job"]
    list_filter = ["current_job__status"]
    search_fields = ["id", "filename", "owner__username", "owner__email"]
    readonly_fields = [field.name for field in Document._meta.fields]
    show_full_result_count = False
    paginator = EstimatedCountPaginator  # nor one for the pages: the planner's estimate

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return super().get_queryset(request).filter(ALL_VERSIONS)  # its index: document_created

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Document | None = None) -> bool:
        return False

    @admin.display(description="status", ordering="current_job__status")
    def status(self, document: Document) -> SafeString | None:
        """The current job's status is the document's (see Document.current_job)."""
        job = document.current_job
        return status_badge(job.status) if job else None

    def get_deleted_objects(
        self, objs: Sequence[Document] | QuerySet[Document], request: HttpRequest
    ) -> tuple:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        # A document's jobs go with it, as through the API; the job admin refuses to delete
        # a job on its own, which would otherwise veto this.
        return deleted, counts, perms_needed - {Job._meta.verbose_name}, protected

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        delete_document(document_id=obj.id, owner_id=obj.owner_id)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        for document in queryset:
            self.delete_model(request, document)


class ErasingUserAdmin(UserAdmin):
    """Django's user admin, whose delete erases (documents/upkeep/erasure.py): the files, the
    events and the cached query embeddings go too, in batches, not one long cascade."""

    def get_deleted_objects(
        self, objs: Any, request: HttpRequest
    ) -> tuple[list[str], dict[str, int], set[str], list[str]]:
        """What the confirmation page lists: each account and how many documents it holds,
        not every row (Django's own list walks all of them, and refuses for the rows no
        admin may delete, such as jobs)."""
        users = list(objs)
        held = {
            owner: count
            for owner, count in Document.objects.filter(owner__in=users)
            .order_by()
            .values_list("owner")
            .annotate(count=Count("id"))
        }
        listed = [
            f"{user}: {held.get(user.pk, 0)} documents, with their jobs, chunks, files, "
            "webhook events and tokens"
            for user in users
        ]
        return listed, {"users": len(users), "documents": sum(held.values())}, set(), []

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        erase_user(obj.pk)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        for user_id in queryset.values_list("pk", flat=True):
            erase_user(user_id)


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), ErasingUserAdmin)
