from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"

    def ready(self) -> None:
        from search import checks, ocr_checks  # noqa: F401  (registers the system checks)
