from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    # Built without locking out the job table's writes, which needs no transaction.
    atomic = False

    dependencies = [("jobs", "0014_job_error_code")]

    operations = [
        AddIndexConcurrently(
            model_name="job",
            index=models.Index(
                condition=models.Q(version__gt=0), fields=["created_at", "id"], name="job_created"
            ),
        ),
    ]
