from django.contrib import admin

from documents.models import Document


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["filename", "owner", "size", "version", "created_at"]
    search_fields = ["id", "filename", "owner__username"]
    readonly_fields = [field.name for field in Document._meta.fields]
