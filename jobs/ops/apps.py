from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "jobs.ops"
    label = "ops"
    verbose_name = "operations"

    def ready(self) -> None:
        from jobs import events, sweeper
        from jobs.ops import alerts

        events.failed_after_commit.connect(alerts.on_job_failed, dispatch_uid="ops.alerts")
        sweeper.on_each_pass(
            "jobs.ops.counts.fold",
            "jobs.ops.dashboard.history.record",
            "jobs.ops.alerts.check_queue_age",
            "jobs.ops.lost_messages.resend_waiting_behind_idle_threads",
        )
