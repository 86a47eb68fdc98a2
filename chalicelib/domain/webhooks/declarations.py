"""The webhook resource."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.webhooks.webhooks import WebhookHooks

WEBHOOK = Resource(
    kind="hook",
    prefix="hooks",
    singular="hook",
    plural="hooks",
    routes="webhooks",
    category="object",
    permission="webhook:webhooks",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        a.text("webhookUrl", required=True),
        a.text("secret"),
        a.choice("eventsOrderbyDir", "ASC", "DESC"),
        a.array("triggers"),
    ),
    hooks=WebhookHooks(),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (WEBHOOK,)
