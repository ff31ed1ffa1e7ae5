"""Re-embedding's tests run real workers against the search tests' fake OpenAI server."""

from tests.search.conftest import openai_server  # noqa: F401  (a fixture)
