"""Deliveries carry their owner (counted per owner while in flight) and the claim of the
attempt under way. Existing rows take the owner of their event."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0001_webhooks"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="delivery",
            name="owner",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="delivery",
            name="claimed_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunSQL(
            "UPDATE webhooks_delivery AS d SET owner_id = e.owner_id"
            " FROM webhooks_event AS e WHERE d.event_id = e.id",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
