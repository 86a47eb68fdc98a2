"""The widget parameters Mautic's dashboard subscribers read besides the range (`docs/views.md`):
`filter[...]`, which Mautic's WidgetApiController merges into the widget's parameters (`flag`,
`companyId`, `campaignId`, `segmentId`), `dataset` (root or `filter[dataset]`) and `timezone` (the
zone `dateFrom`/`dateTo` are read in and the buckets are cut in).

The contact filters (EmailBundle's `FilterTrait`): `companyId` keeps the events of contacts linked to
that company, `segmentId` of contacts in that segment (not manually removed), `campaignId` the events
of sends an automation's steps made (the send's `source`). They read the contacts of the events (one
BatchGetItem per 100), the automation and, for events naming a send, the send records (one
BatchGetItem per 100). Naming a company, automation or segment needs its view (`check`)."""

from collections.abc import Iterable, Mapping, Sequence
from datetime import tzinfo

from chalicelib.domain.kernel import access, references, registry
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_stats
from chalicelib.records import record
from chalicelib.store import port as store

CONTACT_KEYS = ("companyId", "campaignId", "segmentId")


@record
class Params:
    """A widget's filters: `flag` (a name, or a list of segment ids for `lead.lifetime`), `dataset`
    names, the contact filters (None: not filtered), and `segments.build.time`'s `order` and
    `segments` (ids)."""

    flag: JSON = None
    dataset: tuple[str, ...] = ()
    order: JSON = None
    segments: tuple[str, ...] = ()
    company_id: int | None = None
    campaign_id: int | None = None
    segment_id: int | None = None

    def narrows(self) -> bool:
        """True when a contact filter is set."""
        return any(v is not None for v in (self.company_id, self.campaign_id, self.segment_id))


def listed(value: JSON, field: str = "filter[flag]") -> tuple[str, ...]:
    """A list parameter (`x[]=a&x[]=b`, `x[0]=a`, or one value) as strings; a 400 naming `field`."""
    return _names(value, field)


def _names(value: JSON, field: str) -> tuple[str, ...]:
    """A list parameter (`x[]=a&x[]=b`, `x[0]=a`, or one value) as strings."""
    if value in (None, ""):
        return ()
    items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else [value]
    if not all(isinstance(item, (str, int)) for item in items):
        raise invalid(field, "A list of names is expected.")
    return tuple(str(item) for item in items)


def _id(value: JSON, field: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        return a.as_int(value)
    except a.Invalid:
        raise invalid(field, "This value should be an id (a whole number).") from None


def parse(query: Mapping[str, JSON]) -> Params:
    """The filters of a widget request; a 400 naming the parameter for a malformed one."""
    given = query.get("filter")
    if given not in (None, "") and not isinstance(given, dict):
        raise invalid("filter", "filter is a set of named values: filter[flag], filter[companyId]...")
    found: Mapping[str, JSON] = given if isinstance(given, dict) else {}
    dataset = found.get("dataset", query.get("dataset"))
    return Params(
        flag=found.get("flag"),
        dataset=_names(dataset, "dataset"),
        order=found.get("order"),
        segments=_names(found.get("segments"), "filter[segments]"),
        **{
            name: _id(found.get(key), f"filter[{key}]")
            for name, key in zip(("company_id", "campaign_id", "segment_id"), CONTACT_KEYS, strict=True)
        },
    )


def check(params: Params, ctx: Context) -> None:
    """Forbidden (403) when a contact filter names a company, automation or segment the caller may not
    view (a reference decides access on the document; one BatchGetItem). An unknown id filters
    everything out, as Mautic's query finds no row."""
    named = {"company": params.company_id, "automation": params.campaign_id, "segment": params.segment_id}
    wanted = {kind: [i] for kind, i in named.items() if i is not None}
    if not wanted:
        return
    for kind, found in references.referenced_many(wanted, ctx).items():
        for doc in found.values():
            access.require(ctx, registry.resource(kind), Action.VIEW, doc)


def zone(query: Mapping[str, JSON]) -> tzinfo | None:
    """The `timezone` parameter (an IANA name), None without one; a 400 naming it when unknown."""
    name = query.get("timezone")
    if name in (None, ""):
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # on first use: its import reads sysconfig (~3 ms)

    try:
        return ZoneInfo(str(name))
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a directory of zones (`America`)
        raise invalid("timezone", f"Unknown timezone '{name}'; use an IANA name such as Europe/Prague.") from None


def flag(params: Params, allowed: Sequence[str]) -> str | None:
    """The `flag` of a widget that knows the `allowed` ones; a 400 naming `filter[flag]` otherwise."""
    if params.flag in (None, ""):
        return None
    if str(params.flag) not in allowed:
        raise invalid("filter[flag]", f"Unknown flag '{params.flag}'; use one of {', '.join(allowed)}.")
    return str(params.flag)


def in_segment(doc: Doc | None, segment_id: JSON) -> bool:
    """Whether a contact document is in the segment (a manual removal is no membership)."""
    entry = ((doc or {}).get("segments") or {}).get(str(segment_id))
    return isinstance(entry, dict) and not entry.get("manuallyRemoved")


def _of_company(doc: Doc | None, company_id: int) -> bool:
    return any(link.get("id") == company_id for link in (doc or {}).get("companies") or [])


def _steps(automation_id: int, ctx: Context) -> set[int]:
    """The ids of an automation's steps (none for an unknown automation)."""
    found = references.referenced("automation", [automation_id], ctx).get(automation_id) or {}
    return {int(e["id"]) for e in found.get("events") or [] if a.digits(str(e.get("id", "")))}


def _send_sources(events: Sequence[Doc]) -> dict[int, JSON]:
    """{event id: [source, source id] of its send} for email events naming a send (`statId`)."""
    keyed = {
        e["id"]: (email_stats.kind("email", e["details"]["emailId"]), int(e["details"]["statId"]))
        for e in events
        if (e.get("details") or {}).get("statId") is not None and (e.get("details") or {}).get("emailId") is not None
    }
    sends = store.batch_get_keys(list(keyed.values())) if keyed else {}
    return {
        event_id: [(sends.get(key) or {}).get("source"), (sends.get(key) or {}).get("sourceId")]
        for event_id, key in keyed.items()
    }


def _from_steps(events: Sequence[Doc], steps: set[int]) -> list[Doc]:
    """The events of sends an automation step made: `email.sent` carries its source, the others name
    their send (read, click); events naming no send (failures, do-not-contact) are not counted."""
    sources = _send_sources([e for e in events if "source" not in (e.get("details") or {})])
    kept = []
    for event in events:
        details = event.get("details") or {}
        source = details["source"] if "source" in details else sources.get(event["id"])
        if isinstance(source, list) and len(source) > 1 and source[0] == "campaign" and _step(source[1]) in steps:
            kept.append(event)
    return kept


def _step(value: JSON) -> int | None:
    return int(value) if a.digits(str(value)) else None


def matching(events: Iterable[Doc], params: Params, ctx: Context) -> list[Doc]:
    """The events that pass the contact filters (all of them when none is set)."""
    found = list(events)
    if not params.narrows() or not found:
        return found
    if params.campaign_id is not None:
        found = _from_steps(found, _steps(params.campaign_id, ctx))
    if params.company_id is None and params.segment_id is None:
        return found
    contacts = references.referenced_many({"contact": list({e.get("contactId") for e in found})}, ctx)["contact"]
    if params.company_id is not None:
        found = [e for e in found if _of_company(contacts.get(e.get("contactId")), params.company_id)]
    if params.segment_id is not None:
        found = [e for e in found if in_segment(contacts.get(e.get("contactId")), params.segment_id)]
    return found
