from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "jobs.webhooks"
    label = "webhooks"
    verbose_name = "webhooks"
