from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    # Built without locking out the job table's writes, which needs no transaction.
    atomic = False

    dependencies = [("jobs", "0013_job_lease")]

    operations = [
        AddIndexConcurrently(
            model_name="job",
            index=models.Index(
                condition=~models.Q(error_code=""), fields=["error_code"], name="job_error_code"
            ),
        ),
    ]
