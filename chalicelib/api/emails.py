"""Sending emails and text messages (compat 13.1): to one contact, to an email's segments, replies."""

from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import references, validation
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import ab_tests, email_sends, sending, tracking

routes = Routes("emails")


def _tokens(value: JSON) -> Doc:
    """The `tokens` of a send: an object of token names and values ({} when absent); 400 otherwise."""
    if value in (None, "", []):
        return {}
    if not isinstance(value, dict):
        raise invalid("tokens", "This value should be an object of token names and values.")
    return value


def _attachments(value: JSON, ctx: Context) -> list[int]:
    """The ids of existing assets to attach ([] when absent); 400 naming the unknown ones."""
    if value in (None, "", []):
        return []
    try:
        ids = a.id_list(value)
    except a.Invalid:
        raise invalid("assetAttachments", "This value should be a list of asset ids.") from None
    missing = [str(i) for i in ids if i not in references.referenced("asset", ids, ctx)]
    if missing:
        raise invalid("assetAttachments", f"No asset found with id {', '.join(missing)}.")
    return ids


@routes.route(
    "/emails/{id}/contact/{contact_id}/send",
    "POST",
    access=(Need("email", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def send_to_contact(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """A transactional send to one contact (do-not-contact ignored, as Mautic)."""
    payload = validation.payload_object(request.body)
    tokens, attachments = _tokens(payload.get("tokens")), _attachments(payload.get("assetAttachments"), ctx)
    result = sending.send_email(
        id, contact_id, ctx, source=("api", None), tokens=tokens, transactional=True, attachments=attachments
    )
    return {"success": True} if result["success"] else {"success": False, "failed": result["reason"]}


@routes.route("/emails/{id}/send", "POST", access=(Need("email", Action.VIEW, "id"),))
def send_to_segments(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Send the email to its segments (or the `lists` given, at most `limit` contacts): the first
    `batch` in the request (counted in `sentCount` and `failedRecipients`), the rest queued. Exactly
    Mautic's keys (`EmailApiControllerFunctionalTest::testSendAction`); the email's `sendProgress` shows the rest."""
    _, outcomes = email_sends.start(id, validation.payload_object(request.body), ctx)
    return {"success": 1, "sentCount": outcomes["sent"], "failedRecipients": outcomes["failed"]}


@routes.route("/emails/reply/{hash}", "POST", access=(Need("email", Action.VIEW),))
def reply(request: ApiRequest, ctx: Context, hash: str) -> Answer:
    """Record a reply to the email sent under a tracking hash (201)."""
    tracking.reply(hash, ctx)
    return Reply({"success": True}, 201)


@routes.route(
    "/smses/{id}/contact/{contact_id}/send",
    "GET",
    "POST",
    access=(Need("sms", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def send_sms(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Send a text message to a contact's mobile number (compat 13.1's answer)."""
    result = sending.send_sms(id, contact_id, ctx, source=("api", None))
    if result["success"]:
        return {
            "success": True,
            "status": "Delivered",
            "result": {"sent": True, "status": "Delivered", "content": result["content"]},
            "errors": [],
        }
    reason = result["reason"]
    return {
        "success": False,
        "status": reason,
        "result": {"sent": False, "status": reason},
        "errors": [{"message": reason}],
    }


@routes.route("/emails/{id}/abtest", "GET", access=(Need("email", Action.VIEW, "id"),))
def ab_test(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The A/B test the email belongs to: its versions' counts, the criteria and the winners."""
    return {"abTest": ab_tests.results(id, ctx)}


blueprint = routes.blueprint()
