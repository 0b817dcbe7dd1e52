"""Celery tasks of the annotation app: webhook deliveries (``annotation.webhooks``)."""

from celery import shared_task
from django.conf import settings


@shared_task(bind=True, acks_late=True)
def deliver_webhook(self, delivery_id: int) -> bool:
    """Deliver once; on failure, retry after the next of ``CONCORD_WEBHOOK_RETRY_DELAYS``."""
    from annotation.webhooks import deliver

    if deliver(delivery_id):
        return True
    delays = settings.CONCORD_WEBHOOK_RETRY_DELAYS
    if self.request.retries < len(delays):
        raise self.retry(countdown=delays[self.request.retries], max_retries=len(delays))
    return False
