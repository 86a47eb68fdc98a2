"""Form follow-ups: the submit actions that reach beyond the contact, run by the `webhooks` worker
once the submission is stored (domain/web/form_actions.py writes the item with it and queues it).

`fan_out` turns a follow-up item into one message per action, then removes the item; `attempt`
performs one action:
- `form.repost`: the results POSTed form-encoded to `post_url` (Mautic's payload), through the
  guarded HTTP client; at least once. A failure is tried again on the webhook retry schedule.
- `email.send.lead`: the email to the contact (do-not-contact ignored, as Mautic), at most once.
- `email.send.user`, `form.email`: messages to users or addresses (domain/web/form_mail.py), each
  recipient at most once.
- `lead.scorecontactscompanies`: `score` added to each company of the contact, at most once each.
A failure that trying again cannot mend is recorded as `form.action.failed` on the contact's
timeline; one that outlived the retry schedule goes to the dead-letter queue too. A repost that
failed for good mails its `failure_email`. `sweep` (every minute) queues again items whose
message was lost.
"""

import copy
import logging
import time
from collections.abc import Callable
from urllib.parse import urlencode

from chalicelib import config
from chalicelib.domain.contacts.declarations import COMPANY
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import clock, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, Stale
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import sending
from chalicelib.domain.web import form_actions, form_checks, form_mail, limits
from chalicelib.domain.web.form_mail import Outcome
from chalicelib.ports import http, queues
from chalicelib.store import port as store

QUEUE = form_actions.QUEUE
STALE_SECONDS = 120  # an item older than this lost its message
SWEEP_MAX = 1000
USER_AGENT = f"Mautic/{config.MAUTIC_VERSION} (form repost)"
log = logging.getLogger(__name__)


def fan_out(message: Doc) -> None:
    """One `formaction` message per action of a follow-up item; then the item goes."""
    item = store.get(form_actions.KIND, message["id"])
    if item is None:
        return  # already fanned out (a duplicate message)
    job = {key: item[key] for key in ("form", "submission", "contact", "baseUrl")}
    queues.send(
        QUEUE,
        [
            {
                "type": "formaction",
                "id": f"{item['id']}-{number}",
                "attempt": 1,
                "sent": [],
                "job": job,
                "action": action,
            }
            for number, action in enumerate(item["actions"])
        ],
    )
    store.remove(form_actions.KIND, item["id"])


def sweep() -> None:
    """Queue again the follow-up items older than STALE_SECONDS (oldest first, SWEEP_MAX a run)."""
    cutoff = (time.time_ns() - STALE_SECONDS * 10**9) * form_actions.ID_SCALE
    ids = [item["id"] for item in store.iterate(form_actions.KIND, between=(0, cutoff), limit=SWEEP_MAX)]
    queues.send(QUEUE, form_actions.messages(ids))


def attempt(message: Doc) -> None:
    """Perform one action; then done, queued again for later, or recorded as failed."""
    waiting = message.get("due", 0) - time.time()
    if waiting > 1:
        queues.send(QUEUE, [message], delay=min(waiting, queues.MAX_DELAY))  # SQS delays 15 minutes at most
        return
    ctx = Context(base_url=message["job"].get("baseUrl") or "")
    status, reason = ACTIONS[message["action"]["type"]](message, ctx)
    if status == "ok":
        return
    delay = http.retry_delay(message["attempt"]) if status == "retry" else None
    if delay is not None:
        queues.send(
            QUEUE,
            [dict(message, attempt=message["attempt"] + 1, due=time.time() + delay)],
            delay=min(delay, queues.MAX_DELAY),
        )
        return
    if status == "retry":  # the copy is the next attempt: a redrive claims fresh markers
        queues.send(
            QUEUE,
            [dict(message, attempt=message["attempt"] + 1, error=reason, failedAt=clock.now_iso())],
            dead_letter=True,
        )
    _failed(message, reason, ctx)


def _failed(message: Doc, reason: str | None, ctx: Context) -> None:
    job, action = message["job"], message["action"]
    if action["type"] == "form.repost":
        notice = dict(message, id=f"{message['id']}-failure", sent=[])
        mails = form_mail.repost_failed_mails(job, action.get("properties") or {}, reason, ctx)
        if form_mail.deliver_each(notice, mails)[0] != "ok":
            log.warning("the failure notice of %s was not sent", message["id"])
    event = form_actions.failure_event(
        job["form"], action, reason, submissionId=job["submission"]["id"], attempts=message["attempt"]
    )
    sending.write_contact(job["contact"]["id"], lambda doc: [event], ctx)


# --- the actions: (status, reason), status "ok", "retry" (not done: may try again) or "failed" -----


def repost_fields(job: Doc, props: Doc) -> list[tuple[str, str]]:
    """Mautic's repost body: `mautic_contact[<field>]`, `mautic_form[id|name|url]`, then each result
    under the name `properties` maps its field alias to (default: the alias)."""
    contact, form, submission = job["contact"], job["form"], job["submission"]
    values = dict(contact.get("values") or {}, id=contact["id"])
    pairs = [(f"mautic_contact[{key}]", _form_value(value)) for key, value in values.items() if value not in (None, "")]
    pairs += [
        ("mautic_form[id]", str(form["id"])),
        ("mautic_form[name]", form.get("name") or ""),
        ("mautic_form[url]", submission.get("referer") or ""),
    ]
    results = submission.get("results") or {}
    pairs += [(str(props.get(alias) or alias), str(value)) for alias, value in results.items()]
    return pairs


def _form_value(value: JSON) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return "|".join(map(str, value)) if isinstance(value, list) else str(value)


def _authorization(props: Doc) -> dict[str, str]:
    """`authorization_header`: `Name: value` as that header, else the value of Authorization."""
    header = str(props.get("authorization_header") or "").strip()
    name, colon, value = header.partition(":")
    if not header:
        return {}
    return {name.strip(): value.strip()} if colon else {"Authorization": header}


def _repost(message: Doc, ctx: Context) -> Outcome:
    job, props = message["job"], message["action"].get("properties") or {}
    headers = {"Content-Type": "application/x-www-form-urlencoded", "User-Agent": USER_AGENT}
    if job["submission"].get("ipAddress"):
        headers["X-Forwarded-For"] = job["submission"]["ipAddress"]
    headers.update(_authorization(props))
    body = urlencode(repost_fields(job, props)).encode()
    result = http.post(
        str(props.get("post_url") or ""),
        body,
        headers,
        config.active().WEBHOOK_TIMEOUT,
        http.networks(config.active().WEBHOOK_ALLOWED_NETWORKS),
    )
    if result.ok:
        return "ok", None
    return ("retry" if result.retry else "failed"), result.error


def _published_email(email_id: int | None, ctx: Context) -> tuple[Doc, None] | tuple[None, str]:
    """(email, None) or (None, why it cannot be sent)."""
    email = store.get("email", email_id) if email_id else None
    if email is None:
        return None, f"The email {email_id} does not exist."
    return (email, None) if is_published(email, ctx.now) else (None, "The email is not published.")


def _email_contact(message: Doc, ctx: Context) -> Outcome:
    job = message["job"]
    email, reason = _published_email(a.id_or_none((message["action"].get("properties") or {}).get("email")), ctx)
    if email is None:
        return "failed", reason
    if not store.claim(f"formmail#{message['id']}#{message['attempt']}#contact"):
        return "ok", None  # a duplicate message: this attempt was made
    if not limits.relay():
        return "failed", (
            f"Not sent: forms may email at most {config.active().FORM_RELAY_PER_WINDOW} submitted addresses "
            f"every {config.active().PUBLIC_WINDOW} seconds."
        )
    try:
        outcome = sending.send_email(
            email["id"],
            job["contact"]["id"],
            ctx,
            source=("form", job["form"]["id"]),
            tokens=form_mail.form_tokens(job),
            transactional=True,
        )
    except NotFound:
        return "failed", "The contact no longer exists."
    if outcome["success"]:
        return "ok", None
    return ("retry" if outcome.get("retryable") else "failed"), outcome["reason"]


def _email_users(message: Doc, ctx: Context) -> Outcome:
    props = message["action"].get("properties") or {}
    email, reason = _published_email(a.id_or_none(form_checks.email_of(props)), ctx)
    if email is None:
        return "failed", reason
    users = store.batch_get("user", sorted(a.ids_in(props.get("user_id")))).values()
    return form_mail.deliver_each(message, form_mail.user_mails(email, message["job"], users, ctx))


def _email_results(message: Doc, ctx: Context) -> Outcome:
    props = message["action"].get("properties") or {}
    return form_mail.deliver_each(message, form_mail.results_mails(message["job"], props, ctx))


def _score_companies(message: Doc, ctx: Context) -> Outcome:
    try:
        delta = a.as_int((message["action"].get("properties") or {}).get("score"))
    except a.Invalid:
        return "failed", "The score is not a whole number."
    for link in message["job"]["contact"].get("companies") or []:
        if store.claim(f"formscore#{message['id']}#{link['id']}"):
            _add_score(link["id"], delta, ctx)
    return "ok", None


def _add_score(company_id: int, delta: int, ctx: Context) -> None:
    """Add to a company's score (a revisioned write, read again when it changed meanwhile)."""

    def write() -> Doc | None:
        existing = store.get(COMPANY.kind, company_id)
        if existing is None:
            return None
        doc = copy.deepcopy(existing)
        doc["score"] = int(doc.get("score") or 0) + delta
        return service.save_change(COMPANY, existing, doc, ctx, stamp=False)

    try:
        service.retrying(write, ctx)
    except Stale:
        log.warning("company %s not scored: it kept changing", company_id)


ACTIONS: dict[str, Callable[[Doc, Context], Outcome]] = {
    "form.repost": _repost,
    "email.send.lead": _email_contact,
    "email.send.user": _email_users,
    "form.email": _email_results,
    "lead.scorecontactscompanies": _score_companies,
}
