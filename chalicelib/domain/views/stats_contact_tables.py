"""The tables of the stats catalogue (`stats_catalogue.py`) answered from what the store keeps
outside the timeline: entries kept in the contact document (segments, automations, companies,
devices, addresses, UTM tags, do-not-contact, frequency rules, category subscriptions), read contact by
contact in id order among the contacts the caller may view, and `webhook_logs`, the delivery logs of
the hooks the caller may view, hook by hook (docs/activity-and-stats.md).
"""

from collections.abc import Callable, Iterable, Iterator

from chalicelib.domain.kernel import access, registry
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.views.stats_event_tables import Reader, bounded
from chalicelib.store import port as store

ContactRows = Callable[[Doc], list[Doc]]  # the rows (by column) of one contact document


def _contacts(expand: ContactRows) -> Reader:
    """A reader of the rows kept in the contacts the caller may view, contact by contact in id order."""

    def read(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
        resource = registry.resource("contact")
        if contact_id is None:
            docs: Iterable[Doc] = access.visible_documents(ctx, resource, descending)
        else:
            one = store.get("contact", contact_id)
            docs = [one] if one is not None and access.viewable(ctx, resource, one) else []
        for doc in bounded(docs, refusal):
            rows = expand(doc)
            yield from reversed(rows) if descending else rows

    return read


def _memberships(doc: Doc) -> list[Doc]:
    return [
        {"leadlist_id": int(segment_id), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
        | {"manually_removed": entry.get("manuallyRemoved"), "manually_added": entry.get("manuallyAdded")}
        for segment_id, entry in sorted((doc.get("segments") or {}).items(), key=lambda item: int(item[0]))
    ]


def _categories(doc: Doc) -> list[Doc]:
    """Mautic's `lead_categories` rows of a contact; `id` None (the rows are kept in the contact, unnumbered)."""
    return [
        {"id": None, "category_id": int(category_id), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
        | {"manually_removed": entry.get("manuallyRemoved"), "manually_added": entry.get("manuallyAdded")}
        for category_id, entry in sorted((doc.get("categories") or {}).items(), key=lambda item: int(item[0]))
    ]


def _journeys(doc: Doc) -> list[Doc]:
    return [
        {"campaign_id": int(automation_id), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
        | {"manually_removed": entry.get("manuallyRemoved"), "manually_added": entry.get("manuallyAdded")}
        | {"date_last_exited": entry.get("dateLastExited"), "rotation": entry.get("rotation") or 1}
        for automation_id, entry in sorted((doc.get("automations") or {}).items(), key=lambda item: int(item[0]))
    ]


def _companies(doc: Doc) -> list[Doc]:
    return [
        {"company_id": link["id"], "lead_id": doc["id"], "date_added": link.get("dateAdded")}
        | {"is_primary": bool(link.get("isPrimary"))}
        for link in doc.get("companies") or []
    ]


def _addresses(doc: Doc) -> list[Doc]:
    return [
        {"id": entry.get("id"), "ip_address": entry.get("ipAddress"), "ip_details": entry.get("ipDetails")}
        for entry in doc.get("ipAddresses") or []
    ]


DEVICE_COLUMNS = {
    "client_info": "clientInfo",
    "device": "device",
    "device_os_name": "deviceOsName",
    "device_os_shortname": "deviceOsShortName",
    "device_os_version": "deviceOsVersion",
    "device_os_platform": "deviceOsPlatform",
    "device_brand": "deviceBrand",
    "device_model": "deviceModel",
}


def _do_not_contact(doc: Doc) -> list[Doc]:
    return [
        {"id": entry.get("id"), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
        | {"reason": entry.get("reason"), "channel": entry.get("channel"), "channel_id": entry.get("channelId")}
        | {"comments": entry.get("comments")}
        for entry in doc.get("doNotContact") or []
    ]


FREQUENCY_COLUMNS = {
    "frequency_number": "frequencyNumber",
    "frequency_time": "frequencyTime",
    "channel": "channel",
    "preferred_channel": "preferredChannel",
    "pause_from_date": "pauseFromDate",
    "pause_to_date": "pauseToDate",
}


UTM_COLUMNS = {
    "query": "query",
    "referer": "referer",
    "remote_host": "remoteHost",
    "url": "url",
    "user_agent": "userAgent",
    "utm_campaign": "utmCampaign",
    "utm_content": "utmContent",
    "utm_medium": "utmMedium",
    "utm_source": "utmSource",
    "utm_term": "utmTerm",
}


def _entries(key: str, columns: dict[str, str]) -> ContactRows:
    """Rows of the contact's `key` entries: their id, the contact, their date and `columns` {column: key}."""

    def rows(doc: Doc) -> list[Doc]:
        return [
            {"id": entry.get("id"), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
            | {column: entry.get(name) for column, name in columns.items()}
            for entry in doc.get(key) or []
        ]

    return rows


_devices = _entries("devices", DEVICE_COLUMNS)
_frequency_rules = _entries("frequencyRules", FREQUENCY_COLUMNS)
_utm_tags = _entries("utmtags", UTM_COLUMNS)


# --- webhook logs -------------------------------------------------------------------------------


def _hook_logs(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
    """The delivery logs of the hooks the caller may view, hook by hook in id order."""
    hooks = access.visible_documents(ctx, registry.resource("hook"), descending)
    for hook in bounded(hooks, refusal):
        for entry in bounded(store.iterate(f"hooklog#{int(hook['id'])}", descending=descending), refusal):
            yield {
                "id": entry["id"],
                "webhook_id": hook["id"],
                "status_code": entry.get("statusCode"),
                "date_added": entry.get("dateAdded"),
                "note": entry.get("error"),
                "runtime": entry.get("duration"),
            }


READERS: dict[str, Reader] = {
    "campaign_leads": _contacts(_journeys),
    "companies_leads": _contacts(_companies),
    "ip_addresses": _contacts(_addresses),
    "lead_devices": _contacts(_devices),
    "lead_donotcontact": _contacts(_do_not_contact),
    "lead_frequencyrules": _contacts(_frequency_rules),
    "lead_categories": _contacts(_categories),
    "lead_lists_leads": _contacts(_memberships),
    "lead_utmtags": _contacts(_utm_tags),
    "webhook_logs": _hook_logs,
}  # the catalogue's tables answered from contact documents and hook logs, by table
