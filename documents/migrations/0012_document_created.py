from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    # Built without locking out the document table's writes, which needs no transaction.
    atomic = False

    dependencies = [("documents", "0011_retention_mark")]

    operations = [
        AddIndexConcurrently(
            model_name="document",
            index=models.Index(
                condition=models.Q(version__gt=0), fields=["created_at", "id"], name="document_created"
            ),
        ),
    ]
