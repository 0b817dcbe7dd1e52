"""Webhook events: what is sent, how it is signed, and its delivery (issue 28).

``emit(study_id, event, data)`` records one delivery per active webhook of the study that
subscribed to ``event`` and sends them once the transaction commits (an event of a rolled
back submit is never sent). With a broker, a Celery task delivers each and retries a failed
one after ``CONCORD_WEBHOOK_RETRY_DELAYS`` seconds; without one (the eager default) it is
tried once, right after the commit, with a short timeout, and stays ``failed`` if that fails.

The body is JSON: ``{"id", "event", "created_at", "data"}``. Headers: ``X-Concord-Event``,
``X-Concord-Delivery``, ``X-Concord-Timestamp`` and ``X-Concord-Signature:
sha256=<hex>``, the HMAC-SHA256 of ``<timestamp>.<body>`` under the webhook's secret (as
Stripe and GitHub sign theirs): a receiver recomputes it and refuses a mismatch or an old
timestamp. Redirects are not followed; nothing of the answer but its status is stored.

The receiver's address is checked when the webhook is registered, before each delivery,
and again at the connection (:func:`annotation.outbound.public_transport`): a name that
answers a public address to the check and a private one when connecting (DNS rebinding)
is refused there, unless ``CONCORD_WEBHOOK_ALLOW_PRIVATE`` allows private receivers.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import httpx2
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Assignment, Webhook, WebhookDelivery
from annotation.outbound import AddressRefused, address_problem, public_transport, ssl_context

Event = Webhook.Event


def signature(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def url_problem(url: str) -> str | None:
    return address_problem(url, allow_private=settings.CONCORD_WEBHOOK_ALLOW_PRIVATE)


def emit(study_id: int, event: str, data: dict, hooks: list[Webhook] | None = None) -> list[int]:
    """Record the deliveries of ``event`` and send them after the commit."""
    hooks = [
        h for h in (_active(study_id) if hooks is None else hooks) if event in (h.events or [])
    ]
    ids = []
    for hook in hooks:
        delivery = WebhookDelivery.objects.create(
            webhook=hook, event=event, payload={"event": event, "study": study_id, **data}
        )
        ids.append(delivery.pk)
    if ids:
        transaction.on_commit(lambda: dispatch(ids))
    return ids


def _active(study_id: int) -> list[Webhook]:
    return list(Webhook.objects.filter(study_id=study_id, active=True))


def dispatch(ids: list[int]) -> None:
    from annotation.tasks import deliver_webhook

    for pk in ids:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            deliver(pk)  # once, now: no worker to retry it later
        else:
            deliver_webhook.delay(pk)


def _client() -> httpx2.Client:
    """An HTTP client for one delivery: no redirect followed, the settings' timeout, and,
    unless private receivers are allowed, connections only to the public address checked
    when connecting (module doc)."""
    timeout = settings.CONCORD_WEBHOOK_TIMEOUT
    if settings.CONCORD_WEBHOOK_ALLOW_PRIVATE:
        return httpx2.Client(verify=ssl_context(), timeout=timeout, follow_redirects=False)
    transport = public_transport(
        verify=ssl_context(),
        limits=httpx2.Limits(max_connections=1),
        allow_setting="CONCORD_WEBHOOK_ALLOW_PRIVATE",
    )
    return httpx2.Client(transport=transport, timeout=timeout, follow_redirects=False)


def deliver(delivery_id: int) -> bool:
    """One attempt; True when the receiver answered 2xx. The outcome is recorded."""
    delivery = WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)
    if delivery.status == WebhookDelivery.Status.DELIVERED:
        return True
    hook = delivery.webhook
    body = json.dumps(
        {
            "id": delivery.pk,
            "event": delivery.event,
            "created_at": delivery.created_at.isoformat(),
            "data": delivery.payload,
        },
        sort_keys=True,
    ).encode()
    stamp = str(int(time.time()))
    status, error = None, url_problem(hook.url)
    if error is None:
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "Concord-Webhook/1",
            "X-Concord-Event": delivery.event,
            "X-Concord-Delivery": str(delivery.pk),
            "X-Concord-Timestamp": stamp,
            "X-Concord-Signature": signature(hook.secret, stamp, body),
        }
        try:
            with _client() as client:
                status = client.post(hook.url, content=body, headers=headers).status_code
        except AddressRefused as exc:
            error = str(exc)[:200]
        except (httpx2.HTTPError, OSError) as exc:
            error = f"no answer: {exc}"[:200]
    ok = status is not None and 200 <= status < 300
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=F("attempts") + 1,
        response_status=status,
        error="" if ok else (error or f"the receiver answered {status}")[:200],
        status=WebhookDelivery.Status.DELIVERED if ok else WebhookDelivery.Status.FAILED,
        delivered_at=timezone.now() if ok else None,
    )
    return ok


# --- the events --------------------------------------------------------------------------------


def assignment_submitted(assignment: Assignment) -> None:
    """``assignment.submitted``, and ``study.progress`` for each webhook whose next step the
    study's share of submitted assignments has reached. The study's active webhooks are read
    once for both; a study without any costs that one query."""
    study_id = assignment.study_id
    hooks = _active(study_id)  # read once for both events
    if not hooks:
        return
    emit(study_id, Event.ASSIGNMENT_SUBMITTED, {
        "assignment": assignment.pk, "task": assignment.task,
        "question": assignment.question_id, "annotator": assignment.annotator.pseudonym,
        "submitted_at": assignment.submitted_at.isoformat() if assignment.submitted_at else None,
    }, hooks)  # fmt: skip
    _progress(study_id, hooks)


def _progress(study_id: int, active: list[Webhook]) -> None:
    hooks = [h for h in active if Event.STUDY_PROGRESS in (h.events or []) and h.progress_steps]
    if not hooks:
        return
    work = Assignment.objects.filter(study_id=study_id).exclude(status=Assignment.Status.WITHDRAWN)
    total = work.count()
    submitted = work.filter(status=Assignment.Status.SUBMITTED).count()
    fraction = submitted / total if total else 0.0
    for hook in hooks:
        reached = [s for s in hook.progress_steps if hook.progress_sent < s <= fraction + 1e-12]
        if not reached:
            continue
        step = max(reached)
        # one delivery per step crossed, even when two submits race for it
        if Webhook.objects.filter(pk=hook.pk, progress_sent__lt=step).update(progress_sent=step):
            delivery = WebhookDelivery.objects.create(
                webhook=hook,
                event=Event.STUDY_PROGRESS,
                payload={"event": Event.STUDY_PROGRESS, "study": study_id, "step": step,
                         "submitted": submitted, "total": total, "fraction": fraction},
            )  # fmt: skip
            transaction.on_commit(lambda pk=delivery.pk: dispatch([pk]))


def judge_run_finished(run) -> None:
    """``judge_run.finished``: the run's outcome, whatever it was."""
    emit(run.study_id, Event.JUDGE_RUN_FINISHED, {
        "run": run.pk, "judge": run.judge.name, "status": str(run.status),
        "done_units": run.done_units, "failed_units": run.failed_units,
        "total_units": run.total_units,
    })  # fmt: skip
