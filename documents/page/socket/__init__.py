"""The status socket (`/ws/status/`, the `ws` process): its consumer, the session check,
the per-user cap on open sockets, and the URL a page opens it at."""
