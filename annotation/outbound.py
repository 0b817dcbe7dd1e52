"""Where the server may send a request on a user's behalf (webhooks).

An admin's URL is fetched by the server, inside its network: a URL naming a private,
loopback or link-local address would let it reach what the internet cannot (a metadata
service, a database's HTTP port). Such addresses are refused unless the deployment allows
them (``CONCORD_WEBHOOK_ALLOW_PRIVATE``: a receiver on the same host is legitimate in a lab).
The name is resolved and every address it resolves to is checked, when the URL is given and
again before each delivery (a name may resolve elsewhere later).

A check before the call still leaves a gap: the HTTP client resolves the name again when it
connects, and a name whose owner answers a public address to the check and 127.0.0.1 to the
connection (DNS rebinding) passes. :func:`public_transport` closes it for the clients that
use it (judge runs): the address checked is the address connected to (:class:`PublicOnly`).
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from functools import cache
from urllib.parse import urlsplit

import httpcore2
import httpx2

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
    webhook receivers and judge endpoints. A name under ``localhost`` is loopback whatever
    this machine's resolver says (RFC 6761 §6.3; many resolvers answer 127.0.0.1 for
    ``*.localhost``): refused by name, not left to resolve later (a tester's
    ``http://foo.localhost/v1`` was accepted because it did not resolve here)."""
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return f"a loopback address (the name {host})"
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except (socket.gaierror, UnicodeError, ValueError):
        return None
    for text in sorted(found):
        why = why_address_not_public(text)
        if why:
            return why
    return ""


def why_address_not_public(text: str) -> str:
    """Why the address ``text`` (an IP address as ``getaddrinfo`` gives it) is not public,
    "" when it is; an IPv4-mapped IPv6 address is judged as its IPv4 address."""
    address = ipaddress.ip_address(text.split("%")[0])
    address = getattr(address, "ipv4_mapped", None) or address
    for test, why in _NOT_PUBLIC:
        if getattr(address, test):
            return f"{why} ({address})"
    if not address.is_global:
        return f"a non-public address ({address})"
    return ""


class AddressRefused(Exception):
    """A connection not made: the name resolved, when connecting, to an address that is not
    public. Not an ``httpx2`` error on purpose: a transport error is retried, and this
    answer will not change by asking again."""


class PublicOnly(httpcore2.SyncBackend):
    """The network backend of :func:`public_transport`: resolves the host once, refuses
    (:class:`AddressRefused`) when any address it resolves to is not public, and connects to
    one of the addresses it checked. The connection's TLS still names the host (the pool
    passes it as the server name), so certificates are verified as before."""

    def __init__(self, allow_setting: str):
        self.allow_setting = allow_setting

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise httpcore2.ConnectError(f"{host!r} does not resolve ({exc})") from exc
        addresses = list(dict.fromkeys(info[4][0] for info in infos))
        for address in addresses:
            why = why_address_not_public(address)
            if why:
                raise AddressRefused(
                    f"{host!r} resolved, when connecting, to {why}: refused (set "
                    f"{self.allow_setting}=1 to allow private addresses)"
                )
        error: Exception | None = None
        for address in addresses:
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore2.ConnectError as exc:  # the next address, as create_connection does
                error = exc
        raise error or httpcore2.ConnectError(f"{host!r} has no address")


@cache
def ssl_context() -> ssl.SSLContext:
    """One certificate store per process for the server's outbound calls (judge calls,
    webhook deliveries): loading it is ~20 ms, most of what creating a client costs, and a
    judge run creates a client per chunk of units, a delivery follows each submit."""
    return ssl.create_default_context()


def public_transport(*, verify, limits: httpx2.Limits, allow_setting: str) -> httpx2.HTTPTransport:
    """An ``httpx2`` transport that connects only to public addresses, checked at connect
    time (:class:`PublicOnly`); ``allow_setting`` is named in its refusal. A client given a
    transport does not read proxies from the environment (``HTTPS_PROXY``): behind a proxy,
    the address connected to would be the proxy's."""
    transport = httpx2.HTTPTransport(verify=verify, limits=limits)
    # HTTPTransport takes no network backend; the httpcore2 pool it made does. A pool
    # without the attribute (another httpx2) must not connect unchecked: refuse loudly.
    pool = getattr(transport, "_pool", None)
    if not hasattr(pool, "_network_backend"):
        raise RuntimeError("httpx2's transport has no connection pool to check addresses in")
    pool._network_backend = PublicOnly(allow_setting)
    return transport


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
