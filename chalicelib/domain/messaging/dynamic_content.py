"""Dynamic content by slot: `{dwc=slot}` in pages (and emails) resolves, for a contact, to the first
published filter-based item (`isCampaignBased` false) of that `slotName` whose filters match the
contact (no filters match everyone); each resolution counts in its `sentCount`, a sharded counter
(`domain/kernel/counters.py`): an email or page rendering `{dwc=slot}` writes no document."""

from chalicelib.domain.kernel import cache_keys, clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.counters import count_hit
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging.declarations import DYNAMIC_CONTENT
from chalicelib.domain.segments import filters, membership
from chalicelib.store import port as store


def _slot_items(ctx: Context) -> list[Doc]:
    return ctx.memo(
        cache_keys.DYNAMIC_CONTENT_ITEMS,
        lambda: [
            d
            for d in store.iterate(DYNAMIC_CONTENT.kind)
            if d.get("slotName") and not d.get("isCampaignBased", True) and is_published(d, ctx.now)
        ],
    )


def _matches(item: Doc, contact: Doc | None, ctx: Context) -> bool:
    rules = item.get("filters") or []
    if not rules:
        return True
    if contact is None:
        return False
    try:
        matcher = filters.compile_filters(rules)
    except (KeyError, TypeError, ValueError):
        return False
    return matcher.matches(membership.subject(contact, ctx, "company" in matcher.objects), clock.parse(ctx.now))


def resolve(slot: str, contact: Doc | None, ctx: Context) -> str | None:
    """The content for `slot` and the contact (a document or None), counted as sent; None when nothing fits."""
    for item in _slot_items(ctx):
        if item["slotName"] == slot and _matches(item, contact, ctx):
            count_hit(DYNAMIC_CONTENT, item, "sentCount")
            return item.get("content") or ""
    return None
