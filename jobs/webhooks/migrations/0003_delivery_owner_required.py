"""The owner becomes required once every row has one (a migration of its own: Postgres
refuses to alter a table with the backfill's deferred constraint checks pending)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("webhooks", "0002_delivery_owner_claim")]

    operations = [
        migrations.AlterField(
            model_name="delivery",
            name="owner",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddIndex(
            model_name="delivery",
            index=models.Index(
                condition=models.Q(("status", "pending")),
                fields=["owner", "created_at"],
                name="delivery_pending_owner",
            ),
        ),
    ]
