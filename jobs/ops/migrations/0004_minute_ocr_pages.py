from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ops", "0003_workerprocess_dead")]

    operations = [
        migrations.AddField(
            model_name="minute",
            name="ocr_pages",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
    ]
