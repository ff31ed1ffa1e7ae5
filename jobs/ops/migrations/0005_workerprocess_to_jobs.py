"""WorkerProcess is jobs' model now (jobs/migrations/0016_workerprocess.py): forgotten here,
in Django's state only, so its table and rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("ops", "0004_minute_ocr_pages"),
        ("jobs", "0016_workerprocess"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="WorkerProcess")],
            database_operations=[],
        ),
    ]
