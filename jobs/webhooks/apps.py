from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "jobs.webhooks"
    label = "webhooks"
    verbose_name = "webhooks"

    def ready(self) -> None:
        from jobs import events, sweeper
        from jobs.webhooks import outbox

        # An ending's event is written in the transaction that ended the job.
        events.changed_in_transaction.connect(outbox.on_job_changed, dispatch_uid="webhooks.outbox")
        sweeper.on_each_pass(
            "jobs.webhooks.sending.sweep.resend_due", "jobs.webhooks.retention.every_pass"
        )
