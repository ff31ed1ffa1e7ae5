"""Where a webhook may reach, and reaching it: the rule on a URL and on the addresses its
host resolves to, checked when the URL is given and again at each delivery (addresses.py),
host names resolved within a deadline (resolver.py), and the one POST, to the address
that passed and nowhere else (client.py)."""
