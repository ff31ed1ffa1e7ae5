"""API tokens in the admin: who has which (by the key's first characters), since when,
until when; delete one to revoke it. There is no "add": a key is shown only to whoever
makes it (on the page's /accounts/tokens/, or `manage.py create_token`), and only its hash
is kept, so there is nothing to show or edit here. Users are Django's own UserAdmin.
Login lockouts are django-axes' own admin (Access attempts)."""

from django.contrib import admin
from django.http import HttpRequest

from config.accounts.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["prefix", "user", "name", "created_at", "expires_at"]
    list_filter = ["created_at", "expires_at"]
    search_fields = ["user__username", "name", "prefix"]
    readonly_fields = ["user", "name", "prefix", "created_at", "expires_at"]
    exclude = ["digest"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
