"""An email's own dynamic content (`dynamicContent`): `{dynamiccontent="<tokenName>"}` in its subject,
HTML or text becomes, for each contact, the content of the first filter variant of that slot whose
filters match the contact, else the slot's default `content`, as Mautic's EmailBundle
`TokenSubscriber::onTokenReplacement` does. A slot name the email does not hold renders empty.

The filters are segment filters, judged by the segments' engine (domain/segments/filters.py) on the
contact document the send already holds: no read of any other contact. As in Mautic's
`MatchFilterForLeadTrait`, a variant without filters matches no one.
"""

from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.segments import filters, membership


def _segment_filter(rule: Doc) -> Doc:
    """A dynamic content filter as the segments' engine reads it: Mautic's email builder writes the
    value as `filter` beside the field, a segment under `properties.filter`."""
    if isinstance(rule.get("properties"), dict):
        return rule
    return dict(rule, properties={"filter": rule.get("filter")})


def matches(rules: JSON, contact: Doc | None, ctx: Context) -> bool:
    """Whether a variant's filters match the contact (none, or filters that do not compile: no)."""
    if not rules or not isinstance(rules, list) or contact is None or not contact.get("id"):
        return False
    try:
        matcher = filters.compile_filters([_segment_filter(r) for r in rules if isinstance(r, dict)])
    except (KeyError, TypeError, ValueError):
        return False
    subject = membership.subject(contact, ctx, "company" in matcher.objects)
    return matcher.matches(subject, clock.parse(ctx.now))


def content(slots: JSON, name: str, contact: Doc | None, ctx: Context) -> str:
    """The content of the slot `name` for the contact ("" for a slot the email does not hold)."""
    items = list(slots.values()) if isinstance(slots, dict) else slots if isinstance(slots, list) else []
    slot = next((s for s in items if isinstance(s, dict) and str(s.get("tokenName") or "").strip() == name), None)
    if slot is None:
        return ""
    for variant in slot.get("filters") or []:
        if isinstance(variant, dict) and matches(variant.get("filters"), contact, ctx):
            return str(variant.get("content") or "")
    return str(slot.get("content") or "")
