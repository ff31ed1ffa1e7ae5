from django.apps import AppConfig


class AccountsConfig(AppConfig):
    # Moved under config/ (it is what config.accounts.authentication stands on); the label
    # stays "accounts" so the tables, the migration history and every stored token keep
    # their names.
    name = "config.accounts"
    label = "accounts"
    verbose_name = "Sign-in and API tokens"

    def ready(self) -> None:
        from config.accounts import checks  # noqa: F401  (registers the system check)
