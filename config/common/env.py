"""Readers for settings that come from the environment.

Each reader fails loudly on a value it cannot understand: a typo in a deployment
should stop the process at start-up, not quietly fall back to a default.

Each reader also notes what it was asked for in READS: the name, the kind of value, the
default and its bounds. The configuration reference (docs/running/configuration.md) is
written from those notes by `python -m config.tooling.reference`, so it lists the defaults the code
uses; what each variable means is said in config/tooling/variables.py.
"""

import ipaddress
import os
from dataclasses import dataclass


class ConfigurationError(RuntimeError):
    """A setting in the environment has a value the service cannot use."""


@dataclass(frozen=True)
class Read:
    """What the code asked of one environment variable."""

    name: str
    kind: str
    default: object
    minimum: float | None = None
    choices: tuple[str, ...] = ()


# The first read of each name (a later read of the same name asks the same).
READS: dict[str, Read] = {}


def _note(read: Read) -> None:
    READS.setdefault(read.name, read)


def env_str(name: str, default: str = "") -> str:
    _note(Read(name, "text", default))
    return os.environ.get(name, default)


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    _note(Read(name, "whole number", default, minimum))
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be a whole number, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ConfigurationError(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    _note(Read(name, "number", default, minimum))
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return _float(name, raw, minimum)


def env_optional_float(name: str, *, minimum: float | None = None) -> float | None:
    """A number, or None when the variable is unset or empty (the code then decides)."""
    _note(Read(name, "number", None, minimum))
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return None
    return _float(name, raw, minimum)


def _float(name: str, raw: str, minimum: float | None) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be a number, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ConfigurationError(f"{name} must be at least {minimum}, got {value}")
    return value


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    _note(Read(name, "true or false", default))
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigurationError(f"{name} must be true or false, got {raw!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    _note(Read(name, "comma-separated list", default))
    return _items(name, default)


def _items(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: set[str]) -> str:
    _note(Read(name, "one of", default, choices=tuple(sorted(choices))))
    value = os.environ.get(name, default).strip()
    if value not in choices:
        allowed = ", ".join(sorted(choices))
        raise ConfigurationError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def env_networks(name: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """A comma-separated list of addresses or CIDR blocks (10.0.0.0/8, ::1)."""
    _note(Read(name, "addresses or networks", []))
    networks = []
    for item in _items(name, []):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ConfigurationError(
                f"{name} must list addresses or CIDR blocks such as 10.0.0.0/8, got {item!r}"
            ) from None
    return networks
