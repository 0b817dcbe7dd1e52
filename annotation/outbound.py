"""Where the server may send a request on a user's behalf (webhooks).

An admin's URL is fetched by the server, inside its network: a URL naming a private,
loopback or link-local address would let it reach what the internet cannot (a metadata
service, a database's HTTP port). Such addresses are refused unless the deployment allows
them (``CONCORD_WEBHOOK_ALLOW_PRIVATE``: a receiver on the same host is legitimate in a lab).
The name is resolved and every address it resolves to is checked, when the URL is given and
again before each delivery (a name may resolve elsewhere later).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

#: Address properties that make an address one the server must not call, and how to say it.
_NOT_PUBLIC = (
    ("is_loopback", "a loopback address"),
    ("is_link_local", "a link-local address"),
    ("is_unspecified", "an unspecified address"),
    ("is_private", "a private address"),
    ("is_reserved", "a reserved address"),
    ("is_multicast", "a multicast address"),
)


def why_not_public(host: str) -> str | None:
    """Why ``host`` is not public ("a loopback address (127.0.0.1)", …), "" when every address
    it resolves to is public, None when it does not resolve. One private answer is enough
    to refuse; an IPv4-mapped IPv6 address is judged as its IPv4 address. The one rule of
    webhook receivers and judge endpoints."""
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except (socket.gaierror, UnicodeError, ValueError):
        return None
    for text in sorted(found):
        address = ipaddress.ip_address(text.split("%")[0])
        address = getattr(address, "ipv4_mapped", None) or address
        for test, why in _NOT_PUBLIC:
            if getattr(address, test):
                return f"{why} ({address})"
        if not address.is_global:
            return f"a non-public address ({address})"
    return ""


def address_problem(url: str, *, allow_private: bool) -> str | None:
    """Why the server may not send to ``url``, or None when it may."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an http(s) URL"
    if parts.username or parts.password:
        return "a URL with a user name or password is refused (put secrets in the signature)"
    if allow_private:
        return None
    why = why_not_public(parts.hostname)
    if why is None:
        return f"the host {parts.hostname!r} does not resolve"
    if why:
        return f"{parts.hostname!r} is {why}; set CONCORD_WEBHOOK_ALLOW_PRIVATE=1 to allow it"
    return None
