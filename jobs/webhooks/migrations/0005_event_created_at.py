from django.conf import settings
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    # Retention finds old events by their time. Built without locking out the outbox's
    # inserts on a large table, which needs no transaction around it.
    atomic = False

    dependencies = [
        ("webhooks", "0004_secret_rotation_grace"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="event",
            index=models.Index(fields=["created_at"], name="event_created_at"),
        ),
    ]
