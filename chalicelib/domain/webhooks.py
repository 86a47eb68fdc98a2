"""Webhooks: target URL, triggers from the catalogue, generated secret."""
import secrets
from urllib.parse import urlparse

from chalicelib.domain.catalog import WEBHOOK_TRIGGERS
from chalicelib.domain.resources import Hooks


class WebhookHooks(Hooks):
    """PATCH adds triggers to the existing ones; PUT and create set them."""

    def prepare(self, resource, doc, write):
        url = doc.get("webhookUrl") or ""
        parts = urlparse(url)
        if url and (parts.scheme not in ("http", "https") or not parts.netloc):
            write.errors["webhookUrl"] = ["This value is not a valid URL (http or https)."]
        triggers = doc.get("triggers") or []
        unknown = [t for t in triggers if not isinstance(t, str) or t not in WEBHOOK_TRIGGERS]
        if unknown:
            write.errors["triggers"] = [f"Unknown trigger '{unknown[0]}'; see /api/hooks/triggers."]
        if write.mode == "patch" and "triggers" in write.payload:
            triggers = list(dict.fromkeys((write.existing.get("triggers") or []) + triggers))
        doc["triggers"] = triggers
        if not doc.get("secret"):
            doc["secret"] = (write.existing or {}).get("secret") or secrets.token_urlsafe(24)
