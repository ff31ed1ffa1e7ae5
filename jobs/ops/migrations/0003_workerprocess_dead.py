from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ops", "0002_job_counts")]

    operations = [
        migrations.AddField(
            model_name="workerprocess",
            name="pid_space",
            field=models.CharField(blank=True, db_default="", default="", max_length=100),
        ),
        migrations.AddField(
            model_name="workerprocess",
            name="dead_at",
            field=models.DateTimeField(
                blank=True, help_text="When another worker found this process dead.", null=True
            ),
        ),
    ]
