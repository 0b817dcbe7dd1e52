"""Which judge parameters are credentials, and how they are shown: the one rule.

``Judge.parameters`` holds the judge's client configuration, credentials included, and not
only in ``api_key``: headers carry keys (Azure's ``api-key``, a proxy's ``Authorization``),
a base URL may carry them (``https://user:secret@host/v1``, ``?key=…``, ``?sig=…``), and so
may ``extra_query`` and the extra request fields of ``request``. Whatever shows a judge to
someone — the API (:class:`judges.serializers.JudgeSerializer`), the judge card of every
report, page, download, offline HTML and command output
(:func:`metaeval.loaders.judge_card.judge_identity`) — shows :func:`masked_parameters`,
never the stored value; a backup holds :func:`stripped_parameters` (``studio.backup``).

The rule, applied through every object and list of the parameters:

* ``api_key`` and ``extra_headers`` (every header: any may be a key) are secrets whole;
* so is any entry whose name suggests a secret (:data:`SECRET_NAME`: key, token, secret,
  password, signature, auth, credential, cookie… whatever the case);
* in any URL, the userinfo (``user:password@``) and the value of any query (or fragment)
  parameter whose name suggests a secret.

Pure functions, no Django: any layer may call them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from urllib.parse import unquote_plus, urlsplit, urlunsplit

#: Judge parameters that are credentials whole, whatever their value's shape.
SECRET_PARAMETERS = ("api_key", "extra_headers")  # headers carry keys too (Azure api-key, proxies)
#: A name that suggests its value is a credential. ``tokens`` (plural) is a count
#: (``max_tokens``, ``max_completion_tokens``), ``sig`` a word of its own (not ``design``).
SECRET_NAME = re.compile(
    r"key|token(?!s)|secret|passw|pwd|signature|(?<![a-z])sig(?![a-z])|auth|credential|cookie",
    re.IGNORECASE,
)
#: Parameters whose names match :data:`SECRET_NAME` but that hold no secret.
NOT_SECRET = ("token_parameter",)  # which request field carries the token cap
#: What is shown in place of a secret's value (an empty value is shown as it is, so a reader
#: can tell "no key set here" from "a key is set").
MASK = "********"
#: What a backup holds in place of a secret: nothing (the entry, userinfo or query
#: parameter is left out).
_DROP = object()


class MaskError(ValueError):
    """A masked value written back that cannot stand for a stored secret."""


def is_secret_name(name) -> bool:
    return isinstance(name, str) and name not in NOT_SECRET and bool(SECRET_NAME.search(name))


def masked_parameters(parameters) -> dict:
    """``parameters`` as they may be shown: every secret of the rule (module docstring)
    replaced by :data:`MASK` when set. Anything other than a JSON object (the model refuses
    it, but a row may hold one) could hold anything: shown as :data:`MASK` when set, ``{}``
    when empty. A new dict; the argument is not changed."""
    if not isinstance(parameters, dict):
        return {"parameters": MASK} if parameters else {}
    return _hidden(parameters, MASK, top=True)


def stripped_parameters(parameters) -> dict:
    """``parameters`` without any secret of the rule: what a backup holds (a restored judge
    calls its endpoint with the installation's own key until an admin sets another; a URL
    holding the mask would be sent as a wrong password)."""
    if not isinstance(parameters, dict):
        return {}
    return _hidden(parameters, _DROP, top=True)


def masked_url(url: str) -> str:
    """``url`` as it may be shown (in an error message too): userinfo and secret query
    values replaced by :data:`MASK`."""
    return _hidden_url(url, MASK)


def parameters_digest(parameters, key: bytes | str) -> str:
    """A keyed digest (HMAC-SHA256) of the stored parameters, secrets included: it changes
    when any of them does (a report cache key follows a changed credential) and, keyed by
    the server's secret, tells nothing of them to whoever reads it."""
    key = key.encode() if isinstance(key, str) else key
    text = json.dumps(parameters, sort_keys=True, default=str)
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def _hidden(value, replace, top: bool = False):
    """``value`` with each secret replaced by ``replace`` (or left out when it is
    :data:`_DROP`)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if (top and k in SECRET_PARAMETERS) or is_secret_name(k):
                if replace is not _DROP:
                    out[k] = replace if v else v
            else:
                out[k] = _hidden(v, replace)
        return out
    if isinstance(value, list):
        return [_hidden(v, replace) for v in value]
    if isinstance(value, str):
        return _hidden_url(value, replace)
    return value


def _hidden_url(text: str, replace) -> str:
    """``text`` with a URL's userinfo and secret query or fragment values replaced; any
    other text (no ``@`` in an authority, no secret parameter) unchanged, character for
    character."""
    if "@" not in text and "=" not in text:
        return text
    try:
        parts = urlsplit(text)
    except ValueError:  # a malformed URL (a bracket): it could hold anything
        return MASK if replace is not _DROP else ""
    netloc = parts.netloc
    if "@" in netloc:
        host = netloc.rpartition("@")[2]
        netloc = host if replace is _DROP else f"{replace}@{host}"
    query, fragment = _hidden_query(parts.query, replace), _hidden_query(parts.fragment, replace)
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return text
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _hidden_query(query: str, replace) -> str:
    out = []
    for item in query.split("&") if query else []:
        name, sep, value = item.partition("=")
        if sep and value and is_secret_name(unquote_plus(name)):
            if replace is _DROP:
                continue
            item = f"{name}={replace}"
        out.append(item)
    return "&".join(out)


def unmasked_parameters(written: dict, stored: dict) -> dict:
    """Parameters written by a client that read them masked: a :data:`MASK` written back
    where a value is stored (an entry, a URL's userinfo or query value) keeps the stored
    value; one where none is stored is dropped (an entry, a query parameter), so a
    round-trip of what was read erases nothing. A URL's masked userinfo or query value
    stands for the stored one only on the same scheme, host and port — a credential is
    never sent to another endpoint than its own; otherwise :class:`MaskError`, naming the
    parameter."""
    stored = stored if isinstance(stored, dict) else {}
    return _restored(written, stored, "")


def _restored(written, stored, path: str):
    if written == MASK:
        return stored
    if isinstance(written, dict):
        base = stored if isinstance(stored, dict) else {}
        out = {}
        for k, v in written.items():
            value = _restored(v, base.get(k, _DROP), f"{path}.{k}" if path else str(k))
            if value is not _DROP:
                out[k] = value
        return out
    if isinstance(written, list):
        base = stored if isinstance(stored, list) and len(stored) == len(written) else []
        out = [
            _restored(v, base[i] if base else _DROP, f"{path}[{i}]") for i, v in enumerate(written)
        ]
        return [v for v in out if v is not _DROP]
    if isinstance(written, str) and MASK in written and ("@" in written or "=" in written):
        return _restored_url(written, stored if isinstance(stored, str) else "", path)
    return written


def _restored_url(written: str, stored: str, path: str) -> str:
    try:
        new, old = urlsplit(written), urlsplit(stored)
    except ValueError:
        return written
    netloc = new.netloc
    userinfo, at, host = netloc.rpartition("@")
    same_endpoint = (new.scheme, new.hostname, _port(new)) == (old.scheme, old.hostname, _port(old))
    masked = (at and userinfo == MASK) or any(
        v == MASK for q in (new.query, new.fragment) for v in _values(q)
    )
    if masked and not stored:
        raise MaskError(f"{path}: {MASK} stands for a stored credential, and none is stored")
    if masked and not same_endpoint:
        raise MaskError(
            f"{path}: {MASK} stands for the stored credential of {masked_url(stored)}; "
            "a URL to another endpoint needs its own credential written out"
        )
    if at and userinfo == MASK:
        stored_info, stored_at, _ = old.netloc.rpartition("@")
        netloc = f"{stored_info}@{host}" if stored_at else host
    query = _restored_query(new.query, old.query)
    fragment = _restored_query(new.fragment, old.fragment)
    return urlunsplit((new.scheme, netloc, new.path, query, fragment))


def _port(parts):
    try:
        return parts.port
    except ValueError:
        return None


def _values(query: str):
    return [item.partition("=")[2] for item in query.split("&")] if query else []


def _restored_query(written: str, stored: str) -> str:
    """``written`` with each ``name=MASK`` replaced by the stored value of that name (the
    same occurrence when a name repeats), or left out when none is stored."""
    kept: dict[str, list[str]] = {}
    for item in stored.split("&") if stored else []:
        name, _, value = item.partition("=")
        kept.setdefault(name, []).append(value)
    seen: dict[str, int] = {}
    out = []
    for item in written.split("&") if written else []:
        name, sep, value = item.partition("=")
        if sep and value == MASK:
            i = seen[name] = seen.get(name, -1) + 1
            if i >= len(kept.get(name, [])):
                continue
            item = f"{name}={kept[name][i]}"
        out.append(item)
    return "&".join(out)
