"""The webhook resource."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.webhooks.webhooks import WebhookHooks


t, arr = a.text, a.array


WEBHOOK = Resource(
    "hook", "hooks", "hook", "hooks", category="object", permission="webhook:webhooks",
    attrs=(t("name", required=True), t("description"), t("webhookUrl", required=True), t("secret"),
           a.choice("eventsOrderbyDir", "ASC", "DESC"), arr("triggers")),
    hooks=WebhookHooks())
