from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    # Built without locking out the document table's writes, which needs no transaction.
    atomic = False

    dependencies = [("documents", "0012_document_created")]

    operations = [
        AddIndexConcurrently(
            model_name="document",
            index=models.Index(
                condition=models.Q(ready_version__isnull=False),
                fields=["ready_embed_model"],
                name="document_ready_embedding",
            ),
        ),
        AddIndexConcurrently(
            model_name="document",
            index=models.Index(
                condition=models.Q(ready_version__isnull=False),
                fields=["owner", "ready_embed_model"],
                include=["id"],
                name="document_owner_embedding",
            ),
        ),
    ]
