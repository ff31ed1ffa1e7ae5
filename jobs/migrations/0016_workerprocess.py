"""The process table (WorkerProcess) moves from the ops app to jobs' core, which reads it
to tell a dead worker's jobs: in Django's state only. The table stays ops_workerprocess,
rows and all, and the ops app's next migration forgets the model."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0015_job_created"),
        ("ops", "0004_minute_ocr_pages"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="WorkerProcess",
                    fields=[
                        (
                            "name",
                            models.CharField(
                                help_text="host:pid",
                                max_length=200,
                                primary_key=True,
                                serialize=False,
                            ),
                        ),
                        ("host", models.CharField(max_length=150)),
                        ("pid", models.PositiveIntegerField()),
                        ("threads", models.PositiveIntegerField()),
                        ("queues", models.JSONField(default=list)),
                        ("started_at", models.DateTimeField()),
                        ("beat_at", models.DateTimeField()),
                        (
                            "pid_space",
                            models.CharField(blank=True, db_default="", default="", max_length=100),
                        ),
                        (
                            "dead_at",
                            models.DateTimeField(
                                blank=True,
                                help_text="When another worker found this process dead.",
                                null=True,
                            ),
                        ),
                    ],
                    options={"db_table": "ops_workerprocess", "ordering": ["host", "pid"]},
                ),
            ],
            database_operations=[],
        ),
    ]
