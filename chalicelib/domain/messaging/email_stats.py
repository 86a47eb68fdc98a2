"""Send records ("stats", compat 13.2): one per message delivered to a contact, addressed by its
tracking hash, and the counters shown on emails and text messages.

A stat is a document of kind `emailstat#<email id>` (or `smsstat#<sms id>`), ids from one counter.
Creating it counts it in `count#<that kind>` in the same transaction, so an email's `sentCount`
is exact however many workers send at once. The tracking hash carries the email id and the stat
id followed by 64 random bits: finding a stat by hash is one GetItem, and the stored hash is
compared in constant time, so a guessed hash finds nothing.
"""

import hashlib
import hmac
import random
import re
import secrets
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import TypeVar, cast

from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging.records import SendRecord, SmsRecord
from chalicelib.store import port as store

HASH = r"^([0-9a-f]{8})([0-9a-f]{10})([0-9a-f]{16})$"
KINDS = {"email": "emailstat", "sms": "smsstat"}
MESSAGE_KIND = "sesmessage"  # SES message id -> tracking hash (SES feedback finds its send by either)
Record = TypeVar("Record", SendRecord, SmsRecord)


def kind(channel: str, message_id: int | str) -> str:
    """The stats kind of one email or text message."""
    return f"{KINDS[channel]}#{int(message_id)}"


def sent_counter(channel: str, message_id: int | str) -> str:
    """The counter of an email's or text message's send records: its `sentCount`."""
    return f"count#{kind(channel, message_id)}"


def new_hash(message_id: int | str, stat_id: int) -> str:
    """A tracking hash: the email id and the stat id in hex, then 64 random bits."""
    return f"{int(message_id):08x}{int(stat_id):010x}{secrets.token_hex(8)}"


def allocate(channel: str, message_id: int | str) -> tuple[int, str]:
    """(stat id, tracking hash) for a message about to be sent."""
    stat_id = store.allocate_ids(KINDS[channel])[0]
    return stat_id, new_hash(message_id, stat_id)


def create(channel: str, message_id: int | str, stat: Record, variant: int | None = None) -> Record:
    """Store a new stat (and count it as sent); a send of an A/B test also counts for the variant
    picked, in the same transaction (one more item, no more calls)."""
    derived = [(variant_kind(variant), 0, store.Tally(1))] if variant is not None else None
    store.create(kind(channel, message_id), cast(Doc, stat), derived=derived)
    return stat


def variant_kind(variant: int) -> str:
    """The kind whose count (`count#emailvariant#<id>`) is a variant's A/B test sends: `variantSentCount`."""
    return f"emailvariant#{int(variant)}"


def variant_counter(event: str, variant: int | str) -> str:
    """The counter of a variant's A/B test sends (`sent`), first reads (`read`), first clicks (`click`),
    and the sends an asset was downloaded from (`download`) or a form submitted from (`submission`)."""
    return f"count#{variant_kind(int(variant))}" if event == "sent" else f"variant{event}#email#{int(variant)}"


def count_variant(event: str, stat: SendRecord) -> None:
    """One more first read, click, download or submission of an A/B test send, for its variant."""
    if stat.get("variant") is not None:
        store.add(variant_counter(event, stat["variant"]))


def get(channel: str, message_id: int | str, stat_id: int | str) -> Doc | None:
    """One send record by its message and stat id, or None."""
    return store.get(kind(channel, message_id), stat_id)


def find(tracking_hash: str | None) -> SendRecord | None:
    """The email stat of a tracking hash, or None. One GetItem."""
    match = re.match(HASH, str(tracking_hash or "").lower())
    if not match:
        return None
    stat = store.get(kind("email", int(match.group(1), 16)), int(match.group(2), 16))
    if stat is None or not hmac.compare_digest(stat.get("trackingHash", ""), str(tracking_hash).lower()):
        return None
    return cast(SendRecord, stat)


def message_key(message_id: str) -> int:
    """The id under which an SES message id finds its send record: 60 bits of its SHA-256."""
    return int(hashlib.sha256(message_id.encode()).hexdigest()[:15], 16)


def message_kind(key: int) -> str:
    """The kind of a message id's note: one of 16 partitions, so no partition takes every send."""
    return f"{MESSAGE_KIND}#{key % 16}"


def note(message_id: str, tracking_hash: str) -> tuple[str, Doc]:
    """(kind, document) of the note of which send record an SES message id belongs to."""
    key = message_key(message_id)
    return message_kind(key), {"id": key, "messageId": message_id, "trackingHash": tracking_hash}


def remember(message_id: str, tracking_hash: str) -> None:
    """Note which send record an SES message id belongs to (one PutItem per send)."""
    store.put(*note(message_id, tracking_hash))


def stored_many(stats: Sequence[SendRecord]) -> list[tuple[str, Doc]]:
    """(kind, document) of new email send records written together (`store.put_many`, a unit per KB
    each, no transaction); `count_many` counts them once they are stored."""
    return [(kind("email", stat["email"]["id"]), cast(Doc, stat)) for stat in stats]


def count_many(stats: Sequence[SendRecord]) -> None:
    """Count stored send records in their emails' sentCount and their A/B variants' counts: one
    write for the lot (a batch's), not one counter in each send's transaction."""
    totals: Counter[str] = Counter()
    for stat in stats:
        totals[f"count#{kind('email', stat['email']['id'])}"] += 1
        if stat.get("variant") is not None:
            totals[variant_counter("sent", stat["variant"])] += 1
    store.add_many(totals)


def by_message_id(message_id: str) -> SendRecord | None:
    """The email stat of an SES message id (two GetItems), or None."""
    if not message_id:
        return None
    key = message_key(message_id)
    noted = store.get(message_kind(key), key)
    if noted is None or noted.get("messageId") != message_id:
        return None
    return find(noted["trackingHash"])


def save(stat: SendRecord) -> None:
    """Store a changed email stat; `store.Stale` when it changed since it was read."""
    store.replace(kind("email", stat["email"]["id"]), cast(Doc, stat))


READ_SHARDS = 4  # items of an email's unique reads: a newsletter's opens come in bursts (1,000 WCU per item)


def read_counter(email_id: int | str) -> str:
    """The counter of an email's unique reads (before sharding; still summed: its value from then)."""
    return f"read#email#{int(email_id)}"


def read_parts(email_id: int | str) -> list[str]:
    """The items whose sum is an email's unique reads: the counter and its READ_SHARDS shards."""
    return [read_counter(email_id)] + [f"{read_counter(email_id)}@{r}" for r in range(READ_SHARDS)]


def count_read(email_id: int | str) -> None:
    """One more unique read of an email, on one of its shards (a spread, not a secret)."""
    store.add(f"{read_counter(email_id)}@{random.randrange(READ_SHARDS)}")


FEEDBACK = ("bounce", "complaint", "delivery")  # what SES reported about an email's sends (feedback.py)


def feedback_counter(event: str, email_id: int | str) -> str:
    """The counter of an email's bounces, complaints or deliveries (`FEEDBACK`)."""
    return f"{event}#email#{int(email_id)}"


VARIANT = ("sent", "read", "click", "download", "submission")  # an email's A/B test counts (`variant<event>`)


def variant_counts(ids: Iterable[int]) -> dict[str, int]:
    """{counter: value} of the A/B test counters (`VARIANT`) of emails: one BatchGetItem per 100."""
    names = [variant_counter(event, i) for i in ids for event in VARIANT]
    return store.counters(names) if names else {}


def _names(channel: str, i: int, test: bool) -> dict[str, list[str]]:
    """{what: the counters summed for it} of one email or text message."""
    names = {"sent": [sent_counter(channel, i)]}
    if channel == "email":
        names.update({"read": read_parts(i)}, **{event: [feedback_counter(event, i)] for event in FEEDBACK})
    if test:
        names.update({f"variant{event}": [variant_counter(event, i)] for event in VARIANT})
    return names


def counts(channel: str, ids: Iterable[int], tests: Collection[int] = ()) -> dict[int, dict[str, int]]:
    """{id: {"sent": n, "read": n}} for a page of emails (or text messages), emails also with SES's
    {"bounce", "complaint", "delivery"}, and those of `tests` (emails in an A/B test) their test's
    {"variantsent", "variantread", "variantclick", "variantdownload", "variantsubmission"}. One
    BatchGetItem per 100 counters (11 emails: the reads are READ_SHARDS + 1 items)."""
    names = {i: _names(channel, i, i in tests) for i in ids}
    wanted = [name for named in names.values() for parts in named.values() for name in parts]
    found = store.counters(wanted) if wanted else {}
    return {
        i: {"read": 0, **{key: sum(found[name] for name in parts) for key, parts in named.items()}}
        for i, named in names.items()
    }
