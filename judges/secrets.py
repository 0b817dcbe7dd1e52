"""Which judge parameters are credentials, and how they are shown: the one rule.

``Judge.parameters`` holds the judge's client configuration, credentials included (an API
key, headers that carry keys: Azure's ``api-key``, a proxy's ``Authorization``). Whatever
shows a judge to someone — the API (:class:`judges.serializers.JudgeSerializer`), the
judge card of every report, page, download, offline HTML and command output
(:func:`metaeval.loaders.judge_card.judge_identity`) — shows :func:`masked_parameters`,
never the stored value; a backup leaves these keys out (``studio.backup.graph``).

Pure functions, no Django: any layer may call them.
"""

from __future__ import annotations

#: Judge parameters that are credentials: their value is never shown.
SECRET_PARAMETERS = ("api_key", "extra_headers")  # headers carry keys too (Azure api-key, proxies)
#: What is shown in place of a secret parameter's value (an empty value is shown as it is,
#: so a reader can tell "no key set here" from "a key is set").
MASK = "********"


def masked_parameters(parameters) -> dict:
    """``parameters`` as they may be shown: the value of each :data:`SECRET_PARAMETERS`
    key replaced by :data:`MASK` when set. Anything other than a JSON object (the model
    refuses it, but a row may hold one) could hold anything: shown as :data:`MASK` when
    set, ``{}`` when empty. A new dict; the argument is not changed."""
    if not isinstance(parameters, dict):
        return {"parameters": MASK} if parameters else {}
    return {k: (MASK if k in SECRET_PARAMETERS and v else v) for k, v in parameters.items()}


def unmasked_parameters(written: dict, stored: dict) -> dict:
    """Parameters written by a client that read them masked: a secret written back as
    :data:`MASK` keeps the stored value (or is dropped when none is stored), so a
    round-trip of what was read erases nothing."""
    stored = stored if isinstance(stored, dict) else {}
    out = dict(written)
    for key in SECRET_PARAMETERS:
        if out.get(key) == MASK:
            if key in stored:
                out[key] = stored[key]
            else:
                del out[key]
    return out
