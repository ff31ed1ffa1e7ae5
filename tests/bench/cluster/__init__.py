"""The load test across hosts: network namespaces, each with a disk of its own
(tests/harness/netns.py), holding the shared tier, the web, the workers and the clients."""
