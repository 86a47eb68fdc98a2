"""Webhooks: the hook resource (URL, triggers from the catalogue, secret), delivery and its log.

Delivery runs in the `webhooks` worker in two steps (docs/webhooks.md). `fan_out` turns an outbox
item (domain/webhooks/webhook_events.py) into one delivery message per published, subscribed hook, the body
rendered once; `attempt` POSTs one delivery, signed, and logs it. A failure is queued again after
the next delay of the retry schedule; when the schedule is exhausted, the receiver answered 410
(the hook is unpublished at once) or the target is refused, the delivery goes to the dead-letter
queue. A hook whose attempts have all failed for long is unpublished, as Mautic does.
"""

import base64
import binascii
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Iterable
from datetime import timedelta
from urllib.parse import urlparse

from chalicelib import config, observe
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import clock, registry, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.webhooks import webhook_events
from chalicelib.domain.webhooks.catalog import WEBHOOK_TRIGGERS
from chalicelib.ports import http, queues
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

QUEUE = webhook_events.QUEUE
STANDARD_PREFIX = "whsec_"  # a Standard Webhooks secret: the prefix, then 24 to 64 bytes in base64
USER_AGENT = f"Mautic/{config.MAUTIC_VERSION} (webhooks)"
log = logging.getLogger(__name__)


def standard_key(secret: str) -> bytes | None:
    """The key of a Standard Webhooks secret, or None when it is not one."""
    if not secret.startswith(STANDARD_PREFIX):
        return None
    try:
        key = base64.b64decode(secret[len(STANDARD_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        return None
    return key if 24 <= len(key) <= 64 else None


class WebhookHooks(Hooks):
    """PATCH adds triggers to the existing ones; PUT and create set them."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """A valid URL and known triggers (a PATCH adds to the stored ones); the secret kept, or made
        when none is given."""
        url = doc.get("webhookUrl") or ""
        parts = urlparse(url)
        if url and (parts.scheme not in ("http", "https") or not parts.netloc):
            write.errors["webhookUrl"] = ["This value is not a valid URL (http or https)."]
        triggers = doc.get("triggers") or []
        unknown = [t for t in triggers if not isinstance(t, str) or t not in WEBHOOK_TRIGGERS]
        if unknown:
            write.errors["triggers"] = [f"Unknown trigger '{unknown[0]}'; see /api/hooks/triggers."]
        if write.mode == "patch" and "triggers" in write.payload:
            triggers = list(dict.fromkeys(((write.existing or {}).get("triggers") or []) + triggers))
        doc["triggers"] = triggers
        if not doc.get("secret"):
            doc["secret"] = (write.existing or {}).get("secret") or secrets.token_urlsafe(24)
        elif doc["secret"].startswith(STANDARD_PREFIX) and standard_key(doc["secret"]) is None:
            write.errors["secret"] = [f"A Standard Webhooks secret is {STANDARD_PREFIX} then 24 to 64 bytes in base64."]

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """A deleted hook's log is purged in the background (left as is if SQS fails: it is bounded)."""
        if doc is None and existing is not None:
            try:
                queues.send(QUEUE, [{"type": "purge", "hook": existing["id"]}])
            except Exception:  # the hook is deleted: its log only takes space (logged, not raised)
                log.warning("delivery log of hook %s not purged", existing["id"], exc_info=True)


def grouped(hook: Doc, rendered: Iterable[tuple[str, Doc]]) -> dict[str, list[Doc]]:
    """The payload for one hook: its triggers' events keyed by trigger, in its `eventsOrderbyDir`."""
    wanted = [(trigger, payload) for trigger, payload in rendered if trigger in (hook.get("triggers") or [])]
    if hook.get("eventsOrderbyDir") == "DESC":
        wanted.reverse()
    out: dict[str, list[Doc]] = {}
    for trigger, payload in wanted:
        out.setdefault(trigger, []).append(payload)
    return out


def fan_out(message: Doc) -> None:
    """One delivery message per published hook of an outbox item; then the item goes."""
    item = store.get(webhook_events.OUTBOX, message["id"])
    if item is None:
        return  # already fanned out (a duplicate message)
    hooks = [h for h in store.batch_get("hook", item["hooks"]).values() if h.get("isPublished")]
    rendered = webhook_events.render(item, Context(base_url=item["baseUrl"])) if hooks else []
    deliveries = []
    for hook in hooks:
        payload = grouped(hook, rendered)
        if payload:
            deliveries.append(
                {
                    "type": "delivery",
                    "id": f"msg_{item['id']}_{hook['id']}",
                    "hook": hook["id"],
                    "triggers": list(payload),
                    "body": json.dumps(payload, separators=(",", ":")),
                    "attempt": 1,
                    "baseUrl": item["baseUrl"],
                }
            )
    queues.send(QUEUE, deliveries)
    store.remove(webhook_events.OUTBOX, item["id"])


def _signature(key: bytes, data: bytes) -> str:
    return base64.b64encode(hmac.new(key, data, hashlib.sha256).digest()).decode()


def headers(secret: str, delivery: Doc, timestamp: int) -> dict[str, str]:
    """Content type, origin, Standard Webhooks id and timestamp, and the signature: Mautic's
    `Webhook-Signature` (HMAC-SHA256 of the body), or Standard Webhooks' `webhook-signature` for a
    `whsec_` secret. HTTP header names ignore case, so a delivery carries one of the two."""
    data = delivery["body"].encode()
    out = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": delivery["id"],
        "webhook-timestamp": str(timestamp),
    }
    origin = config.active().BASE_URL or delivery.get("baseUrl")
    if origin:
        out["X-Origin-Base-URL"] = origin
    key = standard_key(secret)
    if key is None:
        out["Webhook-Signature"] = _signature(secret.encode(), data)
    else:
        out["webhook-signature"] = "v1," + _signature(key, f"{delivery['id']}.{timestamp}.".encode() + data)
    return out


def attempt(delivery: Doc) -> None:
    """Deliver once; log it; then done, queued again for later, or dead-lettered."""
    waiting = delivery.get("due", 0) - time.time()
    if waiting > 1:
        queues.send(QUEUE, [delivery], delay=min(waiting, queues.MAX_DELAY))  # SQS delays 15 minutes at most
        return
    hook = store.get("hook", delivery["hook"])
    if hook is None:
        return  # deleted: nobody to deliver to
    if not hook.get("isPublished"):
        result = http.Result(None, "Not sent: the webhook is unpublished.", 0.0, retry=False)
    else:
        result = http.post(
            hook["webhookUrl"],
            delivery["body"].encode(),
            headers(hook.get("secret") or "", delivery, int(time.time())),
            config.active().WEBHOOK_TIMEOUT,
            http.networks(config.active().WEBHOOK_ALLOWED_NETWORKS),
        )
    _log(hook["id"], delivery, result)
    observe.metrics({"Outcome": "delivered" if result.ok else "failed"}, WebhookDeliveries=1)
    if not result.ok:
        _after_failure(hook, delivery, result)


def _after_failure(hook: Doc, delivery: Doc, result: http.Result) -> None:
    delay = http.retry_delay(delivery["attempt"]) if result.retry and result.status != 410 else None
    if delay is None:
        queues.send(
            QUEUE,
            [dict(delivery, statusCode=result.status, error=result.error, failedAt=clock.now_iso())],
            dead_letter=True,
        )
    else:
        queues.send(
            QUEUE,
            [dict(delivery, attempt=delivery["attempt"] + 1, due=time.time() + delay)],
            delay=min(delay, queues.MAX_DELAY),
        )
    if hook.get("isPublished") and (result.status == 410 or _failing_for_long(hook)):
        unpublish(hook["id"])


def _failing_for_long(hook: Doc) -> bool:
    """Mautic's health check: none of the last WEBHOOK_DISABLE_LIMIT attempts succeeded, and they
    span WEBHOOK_DISABLE_AFTER seconds since the oldest of them and since the hook was last edited."""
    rows = list(store.iterate(log_kind(hook["id"]), descending=True, limit=config.active().WEBHOOK_DISABLE_LIMIT))
    if len(rows) < config.active().WEBHOOK_DISABLE_LIMIT or any(_succeeded(row) for row in rows):
        return False
    since = max(clock.parse(rows[-1]["dateAdded"]), clock.parse(hook.get("dateModified") or hook["dateAdded"]))
    return since <= clock.now() - timedelta(seconds=config.active().WEBHOOK_DISABLE_AFTER)


def _succeeded(row: Doc) -> bool:
    return row["statusCode"] is not None and 200 <= row["statusCode"] < 300


def unpublish(hook_id: int) -> None:
    """Unpublish a hook (as the system, not a user)."""
    ctx = Context()

    def run() -> None:
        existing = store.get("hook", hook_id)
        if existing and existing.get("isPublished"):
            service.save_change(registry.resource("hook"), existing, dict(existing, isPublished=False), ctx)

    service.retrying(run, ctx)


def log_kind(hook_id: EntityId) -> str:
    """The kind of a hook's delivery log."""
    return f"hooklog#{int(hook_id)}"


def _log(hook_id: int, delivery: Doc, result: http.Result) -> None:
    """Append to the hook's delivery log, dropping the entry WEBHOOK_LOG_MAX older."""
    kind = log_kind(hook_id)
    entry_id = store.allocate_ids(kind)[0]
    store.put(
        kind,
        {
            "id": entry_id,
            "dateAdded": clock.now_iso(),
            "messageId": delivery["id"],
            "triggers": delivery["triggers"],
            "attempt": delivery["attempt"],
            "statusCode": result.status,
            "duration": round(result.duration, 3),
            "error": result.error,
        },
    )
    if entry_id > config.active().WEBHOOK_LOG_MAX:
        store.remove(kind, entry_id - config.active().WEBHOOK_LOG_MAX)


def logs(hook_id: EntityId, start: int, limit: int) -> Doc:
    """`{"total", "logs"}`: a page of the hook's delivery log, newest first."""
    hook = store.get("hook", int(hook_id)) if a.digits(str(hook_id)) else None
    if hook is None:
        raise NotFound()
    kind, kept = log_kind(hook["id"]), config.active().WEBHOOK_LOG_MAX
    rows = list(store.iterate(kind, descending=True, limit=min(start + limit, kept)))
    return {"total": min(store.last_id(kind), kept), "logs": rows[start:]}


def purge_logs(message: Doc) -> None:
    """Drop the delivery log of a deleted hook."""
    kind = log_kind(message["hook"])
    for row in list(store.iterate(kind)):
        store.remove(kind, row["id"])
