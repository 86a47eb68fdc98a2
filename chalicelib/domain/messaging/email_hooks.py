"""What emails and text messages show beyond their stored attributes: `sentCount` and `readCount`
(what clients wrote plus the counters of the sends and reads), and for emails SES's feedback
(`bounceCount`, `complaintCount`, `deliveryCount`, read in the same call) and the progress of the
last segment send (`pendingCount`, `sendProgress`). One or two BatchGetItems per page.

An email's `assetAttachments` travel to whoever it is sent to: writing them, and sending an email
with them, needs the caller's view of each asset."""

from collections.abc import Iterable, Sequence

from chalicelib.domain.kernel import access, cache_keys, references, registry
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import Doc, Events, Items
from chalicelib.domain.messaging import broadcast_index, email_runs, email_stats
from chalicelib.store import port as store

COUNTED = (
    ("sentCount", "sent"),
    ("readCount", "read"),
    ("variantSentCount", "variantsent"),
    ("variantReadCount", "variantread"),
)  # (attribute, live counter) pairs: what is shown is what was written plus the counter


def in_test(doc: Doc) -> bool:
    """Whether an email is part of an A/B test (it has variants or is one): its variant counters count."""
    return bool(doc.get("variantChildren") or doc.get("variantParent"))


def _counts(channel: str, docs: Sequence[Doc]) -> dict[int, dict[str, int]]:
    return email_stats.counts(channel, [doc["id"] for doc in docs], {doc["id"] for doc in docs if in_test(doc)})


class MessageHooks(Hooks):
    """Counters of a channel (`email` or `sms`) added to the stored counts."""

    def __init__(self, channel: str) -> None:
        self.channel = channel

    def prepare(self, doc: Doc, write: Write) -> None:
        """A count a client writes is what it sees: the stored base is that minus the live counter."""
        if write.existing is None or write.errors:
            return
        live = _counts(self.channel, [write.existing])[write.existing["id"]]
        for name, key in COUNTED:
            if name in write.payload and name in doc:
                doc[name] = int(doc.get(name) or 0) - live.get(key, 0)

    def consequences(
        self, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Doc]
    ) -> tuple[Items, Events]:
        """The message's entry in the broadcast index (a `list` message with segments), in its transaction."""
        return broadcast_index.entry(self.channel, doc, existing), []

    def prefetch(self, docs: Sequence[Doc], ctx: Context) -> None:
        """The send counters of a page of messages, read in one go for `present`."""
        ctx.cache[cache_keys.send_counts(self.channel)] = _counts(self.channel, docs)

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """`sentCount` (`readCount`, `variantSentCount`, `variantReadCount`): what was written plus the
        live counters."""
        counts = ctx.cache.get(cache_keys.send_counts(self.channel), {}).get(doc.get("id"))
        if counts is None:
            counts = _counts(self.channel, [doc])[doc["id"]]
        out["sentCount"] = int(doc.get("sentCount") or 0) + counts["sent"]
        for name, key in COUNTED[1:]:
            if name in out:
                out[name] = int(doc.get(name) or 0) + counts.get(key, 0)
        if self.channel == "email":  # what SES reported (feedback.py), read with the counts above
            out.update(
                bounceCount=counts["bounce"], complaintCount=counts["complaint"], deliveryCount=counts["delivery"]
            )


def require_viewable_assets(asset_ids: Iterable[int] | None, ctx: Context) -> None:
    """Forbidden (403) unless the caller may view every asset of `asset_ids` (an unknown one is left
    to the reference check: its 400)."""
    if not asset_ids or access.unrestricted(ctx):
        return
    asset = registry.resource("asset")
    for doc in references.referenced("asset", list(dict.fromkeys(asset_ids)), ctx).values():
        access.require(ctx, asset, Action.VIEW, doc)


class EmailHooks(MessageHooks):
    """Emails: counters, the progress of the last segment send, attachments the caller may view."""

    def __init__(self) -> None:
        super().__init__("email")

    variant_counts = ("variantSentCount", "variantReadCount")
    untracked = ("sentCount", "readCount", "revision")  # Email's setters of these record no change

    def zero_variant_counts(self, docs: Sequence[Doc]) -> Items:
        """The stored test counts and the live ones (sends, first reads, clicks, downloads, submissions)
        back to 0, as `EmailRepository::resetVariants` (one BatchGetItem per 100 counters: 5 an email)."""
        super().zero_variant_counts(docs)
        live = email_stats.variant_counts([int(doc["id"]) for doc in docs])
        return [(name, 0, store.Tally(-n, name)) for name, n in live.items() if n]

    def prepare(self, doc: Doc, write: Write) -> None:
        """The counts, and the caller's view of each newly attached asset (Forbidden otherwise). A
        template email keeps no segments: Mautic's `EmailModel::saveEntity` empties its `lists`."""
        super().prepare(doc, write)
        if doc.get("emailType") != "list" and doc.get("lists"):
            doc["lists"] = []
        kept = set((write.existing or {}).get("assetAttachments") or [])
        require_viewable_assets([i for i in doc.get("assetAttachments") or [] if i not in kept], write.ctx)

    def prefetch(self, docs: Sequence[Doc], ctx: Context) -> None:
        """Also the state and counters of each email's last segment send, in one BatchGetItem each."""
        super().prefetch(docs, ctx)
        states = store.batch_get(email_runs.KIND, [doc["id"] for doc in docs]) if docs else {}
        names = [name for state in states.values() for name in email_runs.counter_names(state)]
        counts = store.counters(names) if names else {}
        ctx.cache[cache_keys.EMAIL_RUNS] = {i: email_runs.view(state, counts) for i, state in states.items()}

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """Also `pendingCount` and `sendProgress`, the last segment send's progress."""
        super().present(doc, out, ctx)
        run = ctx.cache.get(cache_keys.EMAIL_RUNS, {}).get(doc.get("id"))
        out["pendingCount"] = run["pending"] if run else 0
        out["sendProgress"] = run
