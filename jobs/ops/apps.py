from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "jobs.ops"
    label = "ops"
    verbose_name = "operations"
