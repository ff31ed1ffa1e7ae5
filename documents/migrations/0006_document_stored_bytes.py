"""Each document counts the bytes of all its stored versions, for the storage quota.

Existing documents: the current version's size, plus the size of each earlier version's
file still in storage (a version whose file is gone adds nothing)."""

from django.core.files.storage import default_storage
from django.db import migrations, models


def count_stored_versions(apps, schema_editor):  # noqa: ANN001, ANN201 (a migration's own)
    Document = apps.get_model("documents", "Document")
    Job = apps.get_model("jobs", "Job")
    Document.objects.update(stored_bytes=models.F("size"))
    for document in Document.objects.filter(version__gt=1).only("id", "size", "storage_key"):
        keys = set(
            Job.objects.filter(document_id=document.id)
            .exclude(storage_key=document.storage_key)
            .values_list("storage_key", flat=True)
        )
        earlier = 0
        for key in keys:
            try:
                earlier += default_storage.size(key)
            except (OSError, ValueError):
                continue  # gone from storage: it takes no room
        if earlier:
            Document.objects.filter(id=document.id).update(stored_bytes=document.size + earlier)


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0005_drop_redundant_fk_indexes"),
        ("jobs", "0008_job_resumed_waiting"),
    ]

    operations = [
        migrations.AddField(
            model_name="document",
            name="stored_bytes",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.RunPython(count_stored_versions, migrations.RunPython.noop),
    ]
