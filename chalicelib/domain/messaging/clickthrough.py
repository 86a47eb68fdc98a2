"""The click-through of a tracked link (Mautic's `ct`): which send of which email a visitor came from,
so an asset download or a form submission counts for that email's A/B test (`asset.downloads`,
`form.submissions` in `ab_tests.py`).

Mautic's redirect (`PublicController::redirectAction`) appends its `ct` to a tracked link leading to
an asset download, and `AssetModel::trackDownload` ties the download to `ct`'s email; a submission
is tied through the device's page hits from the email (`SubmissionRepository::getSubmissionCountsByEmail`).
Here `ct` names the send record (email id and stat id) and is signed, so a forged one ties nothing;
the click redirect also leaves it in a cookie (the device's own note of the email it came from).
A send record counts once per success (`downloaded`, `submitted`), as Mautic counts distinct
tracking ids; only a send of an A/B test (its `variant`) has a counter to add to, so only its links
carry a click-through.
"""

from typing import cast
from urllib.parse import urlsplit

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import keys, retries
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.messaging import email_messages, email_stats
from chalicelib.domain.messaging.records import SendRecord

PURPOSE = "clickthrough"
FLAGS = {"download": "downloaded", "submission": "submitted"}  # event -> the send record's once-only flag


def token(stat: SendRecord, ctx: Context) -> str | None:
    """The `ct` of a send record: `<email id>.<stat id>.<signature>`; None for a send outside an A/B
    test (nothing would count it: no read spent on it later)."""
    if stat.get("variant") is None:
        return None
    value = f"{int(stat['email']['id'])}.{int(stat['id'])}"
    return f"{value}.{keys.sign(PURPOSE, value, ctx)}"


def with_token(url: str, stat: SendRecord, ctx: Context) -> str:
    """The redirect's target, with `ct` when it is an asset download of this service (Mautic's rule)."""
    base = urlsplit(email_messages.base_url(ctx))
    target, ct = urlsplit(url), token(stat, ctx)
    if ct is None or (target.scheme, target.netloc) != (base.scheme, base.netloc):
        return url
    return f"{url}{'&' if target.query else '?'}ct={ct}" if target.path.startswith("/asset/") else url


def stat_of(ct: object, ctx: Context) -> SendRecord | None:
    """The send record a signed `ct` names (one GetItem), or None (missing, malformed, forged, removed)."""
    parts = str(ct or "").split(".")
    if len(parts) != 3 or not all(a.digits(p) for p in parts[:2]):  # ASCII digits only (`²` is no id)
        return None
    if not keys.signed(PURPOSE, f"{parts[0]}.{parts[1]}", parts[2], ctx):
        return None
    return cast(SendRecord | None, email_stats.get("email", parts[0], parts[1]))


def count(event: str, ct: object, ctx: Context) -> bool:
    """A download or submission (`event`) from the send `ct` names: counted for its A/B variant once
    per send record. Whether it counted."""
    stat = stat_of(ct, ctx)
    if stat is None or stat.get("variant") is None or stat.get(FLAGS[event]):
        return False

    first = [stat]

    def attempt() -> bool:
        doc = first.pop() if first else stat_of(ct, ctx)  # re-read when another write came first
        if doc is None or doc.get(FLAGS[event]):
            return False
        doc[FLAGS[event]] = True  # type: ignore[literal-required]
        email_stats.save(doc)
        return True

    counted = retries.settled(attempt)
    if counted:
        email_stats.count_variant(event, stat)
    return counted
