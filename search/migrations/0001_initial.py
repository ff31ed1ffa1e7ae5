# The vector dimension follows INGEST_EMBED_DIMENSIONS at the time the table is made.

import django.db.models.deletion
import pgvector.django.indexes
import pgvector.django.vector
from django.conf import settings
from django.db import migrations, models
from pgvector.django import VectorExtension


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('documents', '0001_initial'),
    ]

    operations = [
        VectorExtension(),
        migrations.CreateModel(
            name='Chunk',
            fields=[
                ('id', models.UUIDField(editable=False, primary_key=True, serialize=False)),
                ('version', models.PositiveIntegerField()),
                ('index', models.PositiveIntegerField()),
                ('text', models.TextField()),
                ('page', models.PositiveIntegerField(help_text='1-based page the chunk comes from.')),
                ('embedding', pgvector.django.vector.VectorField(dimensions=settings.INGEST_EMBED_DIMENSIONS)),
                ('document', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='documents.document')),
            ],
            options={
                'ordering': ['document', 'version', 'index'],
                'indexes': [pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['embedding'], m=16, name='chunk_embedding_hnsw', opclasses=['vector_cosine_ops'])],
                'constraints': [models.UniqueConstraint(fields=('document', 'version', 'index'), name='chunk_unique_position')],
            },
        ),
    ]
