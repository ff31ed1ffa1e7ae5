from django.contrib import admin

from jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "document", "status", "attempts", "error_code", "created_at"]
    list_filter = ["status", "error_code"]
    search_fields = ["id", "document__filename"]
    readonly_fields = [field.name for field in Job._meta.fields]
