"""What messaging keeps of an old email send once `STATS_RETENTION_DAYS` have passed (issue 32,
domain/privacy/stats_retention.py folds them): the day's counts per email, and a slim send record.

The slim record keeps what the links of an email sent long ago need (its tracking hash finds the email
and the recipient: the unsubscribe, web view, open and click links still work) and what every count is
made of (sent, read, failed, opens, clicks, SES's bounce/complaint/delivery flags, dates of sending and
first read), so `GET /emails/<id>`, the stats API's `email_stats`, reports and charts add up as before;
the address, the IP address, the last open, the rendered subject, the token values, the headers and
SES's message id (with its `sesmessage` note) go (docs/privacy.md, "Old email sends"). A text message's
record keeps its message, contact, date and source; the number and SNS's message id go.
"""

from collections import Counter
from collections.abc import Iterable, Sequence

from chalicelib.domain.kernel import retries
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import email_stats
from chalicelib.store import port as store

KEPT = (
    "id",
    "email",
    "lead",
    "trackingHash",
    "dateSent",
    "isRead",
    "isFailed",
    "dateRead",
    "retryCount",
    "source",
    "sourceId",
    "openCount",
    "viewedInBrowser",
    "clickCount",
    "replied",
    "bounced",
    "complained",
    "delivered",
)
SMS_KEPT = ("id", "sms", "lead", "dateSent", "source", "sourceId")  # a text message's: the number and SNS's id go
FOLDED = "folded"  # set on a slim record: the UTC day it was counted under (never counted again)
BATCH = 100  # BatchGetItem's keys


def keys(events: Iterable[Doc], channel: str = "email") -> list[tuple[str, int]]:
    """(kind, stat id) of the send records that `email.sent` (or `sms.sent`) events name."""
    named = "emailId" if channel == "email" else "smsId"
    return [
        (email_stats.kind(channel, e["details"][named]), int(e["details"]["statId"]))
        for e in events
        if e["event"] == f"{channel}.sent" and (e.get("details") or {}).get("statId")
    ]


def records(named: Sequence[tuple[str, int]]) -> list[tuple[str, Doc]]:
    """(kind, record) of these keys that are still stored, in order: 1 BatchGetItem per 100."""
    found: list[tuple[str, Doc]] = []
    for start in range(0, len(named), BATCH):
        chunk = named[start : start + BATCH]
        got = store.batch_get_keys(chunk)
        found += [(kind, got[(kind, stat_id)]) for kind, stat_id in chunk if (kind, stat_id) in got]
    return found


def _counts(stat: Doc) -> Counter[str]:
    counts = Counter(sent=1)
    flags = ("isRead", "isFailed", "viewedInBrowser", "replied", "complained", "delivered")
    counts.update({name.removeprefix("is").lower(): 1 for name in flags if stat.get(name)})
    counts.update(bounced=1 if stat.get("bounced") else 0, clicked=1 if stat.get("clickCount") else 0)
    counts.update(opens=int(stat.get("openCount") or 0), clicks=int(stat.get("clickCount") or 0))
    return +counts


def daily_counts(stats: Iterable[Doc], channel: str = "email") -> dict[str, dict[str, dict[str, int]]]:
    """{day sent: {email id: {sent, read, failed, bounced, complained, delivered, clicked, clicks, opens,
    viewedinbrowser, replied}}} of email send records (zero counts left out); of text messages'
    {day: {sms id: {sent}}}."""
    days: dict[str, dict[str, Counter[str]]] = {}
    for stat in stats:
        day = str(stat.get("dateSent") or "")[:10] or "unknown"
        counts = _counts(stat) if channel == "email" else Counter(sent=1)
        days.setdefault(day, {}).setdefault(str(stat[channel]["id"]), Counter()).update(counts)
    return {day: {i: dict(c) for i, c in sorted(emails.items())} for day, emails in sorted(days.items())}


def slim(kind: str, stat: Doc) -> None:
    """Keep only `KEPT` of an email send record (`SMS_KEPT` of a text message's), under its revision (an
    open or a click written meanwhile is read again, never lost), and forget its SES message-id note
    first: 1 DeleteItem (emails) and 1 conditional write; nothing for a record slim already."""
    email = kind.startswith(email_stats.KINDS["email"] + "#")
    wanted = KEPT if email else SMS_KEPT
    read = [stat]

    def attempt() -> None:
        doc = read.pop() if read else store.get(kind, stat["id"])
        if doc is None or doc.get(FOLDED):
            return
        if email and doc.get("messageId"):
            key = email_stats.message_key(doc["messageId"])
            store.remove(email_stats.message_kind(key), key)
        kept = {k: v for k, v in doc.items() if k in wanted or k.startswith("_")}
        store.replace(kind, dict(kept, **{FOLDED: str(doc.get("dateSent") or "")[:10] or "unknown"}))

    retries.settled(attempt)
