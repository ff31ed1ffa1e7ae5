"""What every request passes through, whichever app answers it: authentication, the API's
error shape and fallbacks, JSON bodies, paging, forwarded headers, the security headers,
the health check and the API docs pages' access."""
