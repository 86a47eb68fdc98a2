"""Dynamic content by slot, as Mautic's DynamicContentHelper::getDynamicContentForLead: the content an
automation gave the contact for the slot (`dwcSlots`, written by `dwc.decision` and `dwc.push_content`,
domain/automations/dwc_requests.py), else the first published filter-based item (`isCampaignBased`
false, no variant or translation parent) of that `slotName` whose filters match the contact (no filters
match everyone). A filter-based item with variants serves the contact's variant by weight, the same
one each time (the emails' `versions.pick_variant`); the item served is the translation for the
contact's `preferred_locale`, else the browser's `Accept-Language` (`kernel/variants.translation`).
`{dwc=slot}` in pages and emails resolves the same way. Each resolution counts in the served item's
`sentCount`, a sharded counter (`domain/kernel/counters.py`): an email or page rendering `{dwc=slot}`
writes no document."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, clock, variants
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.counters import count_hit
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import versions
from chalicelib.domain.messaging.declarations import DYNAMIC_CONTENT
from chalicelib.domain.segments import filters, membership
from chalicelib.store import port as store


def _published(ctx: Context) -> dict[int, Doc]:
    """Every published item by id (one Query of the kind per request)."""
    return ctx.memo(
        cache_keys.DYNAMIC_CONTENT_ITEMS,
        lambda: {d["id"]: d for d in store.iterate(DYNAMIC_CONTENT.kind) if is_published(d, ctx.now)},
    )


def _slot_items(slot: str, ctx: Context) -> list[Doc]:
    return [
        d
        for d in _published(ctx).values()
        if d.get("slotName") == slot
        and not d.get("isCampaignBased", True)
        and d.get("variantParent") is None
        and d.get("translationParent") is None
    ]


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


def _translated(item: Doc, contact: Doc | None, accept_language: JSON, ctx: Context) -> Doc:
    family = [item] + [d for d in _published(ctx).values() if d.get("translationParent") == item["id"]]
    preferred = ((contact or {}).get("values") or {}).get("preferred_locale")
    languages = {d["id"]: str(d.get("language") or "") for d in family}
    chosen = variants.translation(languages, variants.wanted(preferred, str(accept_language or "")))
    return next((d for d in family if d["id"] == chosen), item)


def _variant(item: Doc, contact: Doc | None, ctx: Context) -> Doc:
    children = [d for d in _published(ctx).values() if d.get("variantParent") == item["id"]]
    if not children:
        return item
    reader = int((contact or {}).get("id") or 0)  # visitors without a contact share one pick
    chosen = versions.pick_variant(item["id"], [(d["id"], versions.weight(d)) for d in children], reader)
    return next((d for d in children if d["id"] == chosen), item)


def _pushed(slot: str, contact: Doc | None, ctx: Context) -> Doc | None:
    """The published item an automation gave the contact for the slot, or None."""
    chosen = a.id_or_none(((contact or {}).get("dwcSlots") or {}).get(slot))
    return _published(ctx).get(chosen) if chosen is not None else None


def resolve(slot: str, contact: Doc | None, ctx: Context, accept_language: JSON = None) -> str | None:
    """The content for `slot` and the contact (a document or None), counted as sent; None when nothing fits."""
    item = _pushed(slot, contact, ctx)
    if item is None:
        item = next((_variant(i, contact, ctx) for i in _slot_items(slot, ctx) if _matches(i, contact, ctx)), None)
    if item is None:
        return None
    served = _translated(item, contact, accept_language, ctx)
    count_hit(DYNAMIC_CONTENT, served, "sentCount")
    return served.get("content") or ""
