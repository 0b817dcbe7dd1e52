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


def address_problem(url: str, *, allow_private: bool) -> str | None:
    """Why the server may not send to ``url``, or None when it may."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an http(s) URL"
    if parts.username or parts.password:
        return "a URL with a user name or password is refused (put secrets in the signature)"
    if allow_private:
        return None
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 443, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError):
        return f"the host {parts.hostname!r} does not resolve"
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if not address.is_global or address.is_multicast:
            return (
                f"{parts.hostname!r} is a private, loopback or link-local address ({address}); "
                "set CONCORD_WEBHOOK_ALLOW_PRIVATE=1 to allow it"
            )
    return None
