"""Public visits: who the visitor is, the anonymous contact a new visitor becomes, the visited
document's numbers (hits, downloads: sharded counter items, the document not written;
`domain/kernel/counters.py`) and events stored on the visitor's contact.

A visitor whose tracking cookie names no stored contact becomes an anonymous contact (no identifying
fields, `dateIdentified` null, its IP address, `lastActive`), created in the same write as the hit's
events, unless the request is not a person's: no User-Agent, a crawler's User-Agent (`crawlerdetect`'s
patterns, but for the HTTP libraries of `TRACKED_CLIENTS`) or a browser's prefetch.
"""

import copy
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dc_field
from functools import lru_cache
from typing import TYPE_CHECKING

from chalicelib import config
from chalicelib.domain.contacts import contact_merge, devices
from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.counters import count_hit
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web import limits

if TYPE_CHECKING:
    from crawlerdetect import CrawlerDetect

Build = Callable[[Doc], list[Doc]]  # given the contact about to be stored: may change it, returns its timeline events


@lru_cache(maxsize=1)
def _crawlers() -> "CrawlerDetect":
    from crawlerdetect import CrawlerDetect  # compiles its patterns: paid by the first public hit only

    return CrawlerDetect()


def is_crawler(user_agent: str | None) -> bool:
    """Whether a User-Agent is a bot's: missing, or matching a known crawler, tool or HTTP library,
    except the HTTP libraries Mautic tracks (`TRACKED_CLIENTS`)."""
    agent = (user_agent or "").strip()
    return not agent or (not agent.startswith(config.active().TRACKED_CLIENTS) and _crawlers().is_crawler(agent))


@dataclass(eq=False, repr=False)
class Visit:
    """Who calls a public endpoint: client IP, HTTP referer, query string, tracked contact (the signed
    visitor token), User-Agent, and whether the browser only prefetches (Purpose/Sec-Purpose).
    `owns_contact`: a form submission goes to the browser's own contact (consent may change)."""

    ip: str | None = None
    referer: str | None = None
    query: dict[str, JSON] = dc_field(default_factory=dict)
    contact_id: int | None = None
    user_agent: str | None = None
    prefetch: bool = False
    owns_contact: bool = False
    source: str | None = None  # the caller's address as the gateway saw it (limits use it)
    private: bool = False  # the browser asked not to be tracked (Sec-GPC: 1 or DNT: 1, HONOR_PRIVACY_SIGNALS)
    clickthrough: str | None = None  # the signed `ct` of the email link it last followed (messaging/clickthrough.py)

    @property
    def visitor(self) -> str:
        """Who counts as one unique visitor: the tracked contact, else the IP address."""
        return f"c{self.contact_id}" if self.contact_id else f"ip{self.ip or '-'}"

    @property
    def trackable(self) -> bool:
        """Whether a new visitor becomes an anonymous contact: a person's browser, not a bot or a prefetch."""
        return not self.prefetch and not is_crawler(self.user_agent)


def _anonymous(visit: Visit, ctx: Context) -> Doc:
    """The payload of a new visitor's anonymous contact: its last activity and IP address (if valid)."""
    payload = {"lastActive": ctx.now}
    try:
        payload["ipAddress"] = str(ipaddress.ip_address(visit.ip or ""))
    except ValueError:
        pass
    return payload


def _with_device(visit: Visit, build: Build, ctx: Context) -> Build:
    """`build`, after noting the browser's device on the contact (a person's browser, not a bot's)."""

    def with_device(doc: Doc) -> list[Doc]:
        if not is_crawler(visit.user_agent):
            devices.record(doc, visit.user_agent, ctx.now)
        return build(doc)

    return with_device


def _admission(visit: Visit) -> Callable[[], bool]:
    """Whether the visit may have a new anonymous contact, asked of the limits once: the per-address
    count of new visitors moves once per visit, however often its write is tried again."""
    admitted: list[bool] = []

    def may_create() -> bool:
        if not admitted:
            admitted.append(visit.trackable and limits.new_visitor(visit))
        return admitted[0]

    return may_create


def _recorded(visit: Visit, build: Build, ctx: Context, fields: Doc | None = None) -> tuple[Doc | None, bool]:
    """(contact, created): `build(doc)`'s timeline events (and changes), and the browser's device when
    it is new to the contact, stored on the tracked contact or on a new anonymous contact created
    with them; (None, False) for a bot without a contact. `fields` (contact field values from a
    public request) are written on that contact only, the visitor's own (`own_fields`).
    `visit.contact_id` then names that contact (None if none). A browser that asked not to be tracked
    (`visit.private`) is recorded on no contact, neither a new one nor the one its cookie names."""
    if visit.private:
        visit.contact_id = None
        return None, False
    with_device, may_create = _with_device(visit, build, ctx), _admission(visit)

    def write(values: Doc | None) -> tuple[Doc | None, bool]:
        existing = contact_merge.tracked(CONTACT, visit.contact_id)
        if existing is not None:
            values = own_fields(values, existing, ctx)
            if values:
                return service.update(CONTACT, existing, values, ctx, build=with_device), False
            doc = copy.deepcopy(existing)
            return service.save_change(CONTACT, existing, doc, ctx, with_device(doc)), False
        if not may_create():
            return None, False
        payload = dict(own_fields(values, None, ctx), **_anonymous(visit, ctx))
        return service.create(CONTACT, payload, ctx, build=with_device)[0], True

    def attempt() -> tuple[Doc | None, bool]:
        try:
            return write(fields)
        except ValidationError:  # a bad field value is dropped: the visit is still recorded
            return write(None)

    contact, created = service.retrying(attempt, ctx)
    visit.contact_id = contact["id"] if contact else None
    return contact, created


def own_fields(values: Doc | None, own: Doc | None, ctx: Context) -> Doc:
    """The field values a visitor may write on its own contact (`own`, None for a new one): a unique
    identifier another contact holds is dropped, so a visitor never edits, merges into or becomes a
    contact by naming its email (Mautic would switch the visitor to that contact)."""
    if not values or CONTACT.hooks.duplicate_of({"id": (own or {}).get("id"), "values": values}, ctx) is None:
        return dict(values or {})
    unique = {f["alias"] for f in definitions("lead", ctx) if f.get("isUniqueIdentifier")}
    return {alias: value for alias, value in values.items() if alias not in unique}


def public_fields(query: Doc, ctx: Context) -> dict[str, str]:
    """The contact field values a public request names: query keys that are the aliases of publicly
    updatable contact fields (Mautic's `isPubliclyUpdatable`)."""
    allowed = {f["alias"] for f in definitions("lead", ctx) if f.get("isPubliclyUpdatable")}
    return {key: value for key, value in query.items() if key in allowed and isinstance(value, str)}


def record_for_contact(visit: Visit, build: Build, ctx: Context, fields: Doc | None = None) -> Doc | None:
    """Store `build(doc)`'s events (and `fields`) on the visitor's contact (see `_recorded`); the
    contact or None."""
    return _recorded(visit, build, ctx, fields)[0]


def record_hit(
    visit: Visit,
    resource: Resource,
    doc: Doc,
    counters: tuple[str, str],
    build: Build,
    ctx: Context,
    firsts: tuple[str, ...] = (),
) -> Doc | None:
    """A hit on `doc`: recorded on the visitor's contact (`record_for_contact`), then counted with
    `counters` = (total, unique) as that contact, and `firsts` on its first visit; a browser that asked
    not to be tracked counts in the total only (no unique-visitor marker naming it or its address).
    Returns the contact or None."""
    contact, created = _recorded(visit, build, ctx)
    if visit.private:
        count_hit(resource, doc, counters[0])
    else:
        count_hit(resource, doc, *counters, visit.visitor, new_visitor=created, firsts=firsts)
    return contact
