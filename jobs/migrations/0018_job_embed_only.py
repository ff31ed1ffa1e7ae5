from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("jobs", "0017_job_extracted_by")]

    operations = [
        migrations.AddField(
            model_name="job",
            name="embed_only",
            # A constant default: Postgres adds the column without rewriting the table.
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Embed the version's stored chunks again, reading no file (an "
                "embedding change: documents/upkeep/reembed.py); their ids, texts and "
                "structure stay.",
            ),
        ),
    ]
