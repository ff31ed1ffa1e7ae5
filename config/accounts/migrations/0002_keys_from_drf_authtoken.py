"""DRF's authtoken kept each key in plain text (table authtoken_token); this keeps every
existing key working as an ApiToken holding only its hash, then drops that table and
forgets its migrations, so no plain key stays in the database.

A database that never had DRF's tokens (a new one) has no such table: nothing to do.
There is no way back: the plain keys are gone, which is the point.
"""

import hashlib

from django.db import migrations

DRF_TABLE = "authtoken_token"


def keep_drf_keys_as_hashes(apps, schema_editor):
    connection = schema_editor.connection
    if DRF_TABLE not in connection.introspection.table_names():
        return
    api_token = apps.get_model("accounts", "ApiToken")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {DRF_TABLE}")
        rows = cursor.fetchall()
    api_token.objects.bulk_create(
        api_token(
            user_id=user_id,
            name="from drf_create_token",
            prefix=key[:8],
            digest=hashlib.sha256(key.encode()).hexdigest(),
            created_at=created,
        )
        for key, user_id, created in rows
    )
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {DRF_TABLE}")
        cursor.execute("DELETE FROM django_migrations WHERE app = 'authtoken'")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_api_tokens")]

    operations = [
        migrations.RunPython(keep_drf_keys_as_hashes, migrations.RunPython.noop, elidable=False)
    ]
