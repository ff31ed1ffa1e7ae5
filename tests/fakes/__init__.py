"""Real stand-ins for outside services, started by the tests themselves."""
