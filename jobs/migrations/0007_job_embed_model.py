# Which embedding made a job's vectors (manage.py reembed). Existing rows get "": unknown.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0006_job_webhook_url'),
    ]

    operations = [
        migrations.AddField(
            model_name='job',
            name='embed_model',
            field=models.CharField(blank=True, db_default='', default='', help_text="The embedding that made this job's vectors, <provider>:<model>:<dimensions>, recorded when they became searchable; empty before that, and for jobs that ended before it was recorded (manage.py reembed counts those as out of date).", max_length=300),
        ),
    ]
