"""Mautic's whole stats catalogue (`GET /stats`, `GET /stats/<table>`): every table its bundles'
`onStatsFetch` subscribers register, with the columns Mautic lists (its Doctrine columns, tracking
hashes out), each answered from what this service stores (docs/activity-and-stats.md):

- event tables: the timeline events of one type (the all-contacts feed, or one contact's timeline
  for `where lead_id eq N`), through `messaging/stats_tables.py` for the tables it had before;
- contact tables: entries kept in the contact document (segments, automations, companies, devices,
  addresses, UTM tags, do-not-contact), read contact by contact in id order;
- `webhook_logs`: the delivery logs of the hooks the caller may view, hook by hook;
- tables of which nothing is kept (`EMPTY`): a well-formed empty answer.

Access as Mautic's subscribers decide it: contact tables need `lead:leads:viewother` (they show
every contact), `webhook_logs` a webhook view (an own-only caller sees their hooks' logs),
`tweet_stats` a tweet view, `audit_log` an administrator.
"""

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from chalicelib import config
from chalicelib.domain.kernel import access, registry, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Forbidden, NotFound, invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import stats_tables
from chalicelib.domain.messaging.stats_tables import Condition, Row, db_value, too_much
from chalicelib.store import port as store

Reader = Callable[[bool, int | None, Context, Exception], Iterator[Doc]]  # (descending, contact id, ctx, refusal)
CONTACT_TABLE_NEEDS = ("lead:leads:viewother",)
WEBHOOK_NEEDS = ("webhook:webhooks:viewown", "webhook:webhooks:viewother")
TWEET_NEEDS = ("mauticSocial:tweets:viewown", "mauticSocial:tweets:viewother")
ADMIN = ("admin",)  # no permission name: only an administrator
ANY_NEEDS = CONTACT_TABLE_NEEDS + WEBHOOK_NEEDS + TWEET_NEEDS  # the routes' (Holds); each table checks its own
UTM = ("utm_campaign", "utm_content", "utm_medium", "utm_source", "utm_term")
HIT_PLACE = ("country", "region", "city", "isp", "organization", "code", "referer", "url")


@dataclass(frozen=True)
class Table:
    """A table of the catalogue: Mautic's `columns` in its table order (`listed`: what `GET /stats`
    names, when more than a row holds), `read` (None: nothing kept, always empty), the columns whose
    order the read follows (`order`, the first one by default), and the names one of which the
    caller needs."""

    columns: tuple[str, ...]
    read: Reader | None = None
    order: tuple[str, ...] = ()
    needs: tuple[str, ...] = CONTACT_TABLE_NEEDS
    listed: tuple[str, ...] = field(default=())

    def names(self) -> list[str]:
        """The columns `GET /stats` lists, sorted as Mautic's `natcasesort`."""
        return sorted(self.listed or self.columns, key=str.lower)


def _bounded(items: Iterable[Doc], refusal: Exception) -> Iterator[Doc]:
    for count, item in enumerate(items, start=1):
        if count > stats_tables.MAX_EVENTS_READ:
            raise refusal
        yield item


def _shaped(columns: Sequence[str], row: Doc) -> Row:
    return {column: db_value(row.get(column)) for column in columns}


# --- event tables -------------------------------------------------------------------------------

EventRows = Callable[[Doc], list[Doc]]  # the rows (by column) of one timeline event


def _events(types: tuple[str, ...], build: EventRows) -> Reader:
    """A reader of the rows of the timeline events of `types`."""

    def read(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
        source = (
            timeline.all_events(descending) if contact_id is None else timeline.contact_events(contact_id, descending)
        )
        for event in _bounded(source, refusal):
            if event["event"] in types:
                yield from build(event)

    return read


def _legacy(table: str, renamed: dict[str, str] | None = None) -> Reader:
    """A reader over a table `messaging/stats_tables.py` answered before (its rows, columns renamed)."""

    def read(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
        for row in stats_tables.table_rows(table, descending, contact_id, refusal):
            yield {renamed.get(k, k) if renamed else k: v for k, v in row.items()}

    return read


def _download(e: Doc) -> list[Doc]:
    d = e["details"]
    asset = d.get("asset") or {}
    return [
        {"id": e["id"], "date_download": e["timestamp"], "asset_id": asset.get("id"), "lead_id": e["contactId"]}
        | {"code": 200, "referer": d.get("referer")}
    ]


def _reply(e: Doc) -> list[Doc]:
    return [{"id": e["id"], "stat_id": e["details"].get("statId"), "date_replied": e["timestamp"]}]


def _open(e: Doc) -> list[Doc]:
    return [{"id": e["id"], "stat_id": e["details"].get("statId"), "date_opened": e["timestamp"]}]


def _stage_change(e: Doc) -> list[Doc]:
    log = e["details"].get("log") or {}
    return [
        {
            "id": e["id"],
            "lead_id": e["contactId"],
            "event_name": log.get("eventName") or e.get("eventLabel"),
            "action_name": log.get("actionName"),
            "stage_id": log.get("reference"),
            "date_added": e["timestamp"],
        }
    ]


def _point_action(e: Doc) -> list[Doc]:
    action = e["details"].get("pointActionId")
    return [] if action is None else [{"point_id": action, "lead_id": e["contactId"], "date_fired": e["timestamp"]}]


def _trigger_events(e: Doc) -> list[Doc]:
    return [
        {"event_id": event_id, "lead_id": e["contactId"], "date_fired": e["timestamp"]}
        for event_id in e["details"].get("triggerEvents") or []
    ]


def _sms(e: Doc) -> list[Doc]:
    d = e["details"]
    failed = e["event"] == "sms.failed"
    return [
        {"id": e["id"], "sms_id": d.get("smsId"), "lead_id": e["contactId"], "date_sent": e["timestamp"]}
        | {"is_failed": failed, "details": {"failed": [d.get("reason") or e.get("eventLabel")]} if failed else {}}
    ]


# --- contact tables -----------------------------------------------------------------------------

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
        for doc in _bounded(docs, refusal):
            rows = expand(doc)
            yield from reversed(rows) if descending else rows

    return read


def _memberships(doc: Doc) -> list[Doc]:
    return [
        {"leadlist_id": int(segment_id), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
        | {"manually_removed": entry.get("manuallyRemoved"), "manually_added": entry.get("manuallyAdded")}
        for segment_id, entry in sorted((doc.get("segments") or {}).items(), key=lambda item: int(item[0]))
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


def _devices(doc: Doc) -> list[Doc]:
    return [
        {"id": entry.get("id"), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
        | {column: entry.get(key) for column, key in DEVICE_COLUMNS.items()}
        for entry in doc.get("devices") or []
    ]


def _do_not_contact(doc: Doc) -> list[Doc]:
    return [
        {"id": entry.get("id"), "lead_id": doc["id"], "date_added": entry.get("dateAdded")}
        | {"reason": entry.get("reason"), "channel": entry.get("channel"), "channel_id": entry.get("channelId")}
        | {"comments": entry.get("comments")}
        for entry in doc.get("doNotContact") or []
    ]


FREQUENCY_COLUMNS = (
    "frequency_number",
    "frequency_time",
    "channel",
    "preferred_channel",
    "pause_from_date",
    "pause_to_date",
)


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


def _utm_tags(doc: Doc) -> list[Doc]:
    return [
        {"id": entry.get("id"), "date_added": entry.get("dateAdded"), "lead_id": doc["id"]}
        | {column: entry.get(key) for column, key in UTM_COLUMNS.items()}
        for entry in doc.get("utmtags") or []
    ]


# --- webhook logs -------------------------------------------------------------------------------


def _hook_logs(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
    """The delivery logs of the hooks the caller may view, hook by hook in id order."""
    hooks = access.visible_documents(ctx, registry.resource("hook"), descending)
    for hook in _bounded(hooks, refusal):
        for entry in _bounded(store.iterate(f"hooklog#{int(hook['id'])}", descending=descending), refusal):
            yield {
                "id": entry["id"],
                "webhook_id": hook["id"],
                "status_code": entry.get("statusCode"),
                "date_added": entry.get("dateAdded"),
                "note": entry.get("error"),
                "runtime": entry.get("duration"),
            }


# --- the catalogue ------------------------------------------------------------------------------

EMAIL_ROW = (
    "id",
    "email_id",
    "lead_id",
    "list_id",
    "ip_id",
    "email_address",
    "date_sent",
    "is_read",
    "is_failed",
    "viewed_in_browser",
    "date_read",
    "retry_count",
    "source",
    "source_id",
    "open_count",
    "last_opened",
    "open_details",
)  # Mautic's select of email_stats, tracking_hash out
HIT = ("id", "date_hit", "date_left", "page_id", "redirect_id", "email_id", "lead_id", "ip_id") + HIT_PLACE
HIT_REST = ("url_title", "user_agent", "remote_host", "page_language", "browser_languages", "tracking_id")
VIDEO = ("id", "date_hit", "date_left", "lead_id", "ip_id") + HIT_PLACE
VIDEO_REST = ("user_agent", "remote_host", "guid", "page_language", "browser_languages", "channel", "channel_id")
CAMPAIGN_LOG = ("id", "event_id", "lead_id", "rotation", "campaign_id", "ip_id", "date_triggered", "is_scheduled")
CAMPAIGN_LOG_REST = ("trigger_date", "system_triggered", "metadata", "channel", "channel_id", "non_action_path_taken")
MESSAGE_STAT = ("source", "source_id", "tokens")

TABLES: dict[str, Table] = {
    "asset_downloads": Table(
        ("id", "date_download", "asset_id", "ip_id", "lead_id", "code", "referer", "tracking_id", "source")
        + ("source_id", "email_id")
        + UTM,
        _events(("asset.download",), _download),
        ("id", "date_download"),
    ),
    "audit_log": Table(
        ("id", "user_id", "user_name", "bundle", "object", "object_id", "action", "details", "date_added")
        + ("ip_address",),
        needs=ADMIN,
    ),
    "campaign_lead_event_log": Table(
        CAMPAIGN_LOG + CAMPAIGN_LOG_REST, _legacy("campaign_lead_event_log"), ("id", "date_triggered")
    ),
    "campaign_leads": Table(
        ("campaign_id", "lead_id", "date_added", "manually_removed", "manually_added", "date_last_exited")
        + ("rotation",),
        _contacts(_journeys),
        ("lead_id",),
    ),
    "channel_url_trackables": Table(("redirect_id", "channel_id", "channel", "hits", "unique_hits")),
    "companies_leads": Table(
        ("company_id", "lead_id", "date_added", "is_primary"), _contacts(_companies), ("lead_id",)
    ),
    "dynamic_content_lead_data": Table(("id", "date_added", "lead_id", "dynamic_content_id", "slot")),
    "dynamic_content_stats": Table(
        ("id", "dynamic_content_id", "lead_id", "date_sent")
        + MESSAGE_STAT
        + ("sent_count", "last_sent")
        + ("sent_details",)
    ),
    "email_stat_replies": Table(
        ("id", "stat_id", "date_replied", "message_id"), _events(("email.replied",), _reply), ("id", "date_replied")
    ),
    "email_stats": Table(
        EMAIL_ROW,
        _legacy("email_stats"),
        ("id", "date_sent"),
        listed=EMAIL_ROW + ("tokens", "copy_id"),
    ),
    "email_stats_devices": Table(
        ("id", "device_id", "stat_id", "ip_id", "date_opened"), _events(("email.read",), _open), ("id", "date_opened")
    ),
    "focus_stats": Table(("id", "focus_id", "type", "type_id", "date_added", "lead_id")),
    "form_submissions": Table(
        ("id", "form_id", "ip_id", "lead_id", "tracking_id", "date_submitted", "referer", "page_id"),
        _legacy("form_submissions"),
        ("id", "date_submitted"),
    ),
    "ip_addresses": Table(("id", "ip_address", "ip_details"), _contacts(_addresses)),
    "lead_categories": Table(("id", "category_id", "lead_id", "date_added", "manually_removed", "manually_added")),
    "lead_companies_change_log": Table(
        ("id", "lead_id", "type", "event_name", "action_name", "company_id", "date_added")
    ),
    "lead_devices": Table(
        ("id", "lead_id", "date_added") + tuple(DEVICE_COLUMNS) + ("tracking_id",), _contacts(_devices), ("lead_id",)
    ),
    "lead_donotcontact": Table(
        ("id", "lead_id", "date_added", "reason", "channel", "channel_id", "comments"),
        _contacts(_do_not_contact),
        ("lead_id",),
    ),
    "lead_event_log": Table(
        ("id", "user_id", "user_name", "bundle", "object", "action", "object_id", "date_added", "properties")
        + ("lead_id",),
        _legacy("lead_event_log"),
        ("id", "date_added"),
    ),
    "lead_frequencyrules": Table(("id", "lead_id", "date_added") + FREQUENCY_COLUMNS),  # no API sets them
    "lead_lists_leads": Table(
        ("leadlist_id", "lead_id", "date_added", "manually_removed", "manually_added"),
        _contacts(_memberships),
        ("lead_id",),
    ),
    "lead_points_change_log": Table(
        ("id", "lead_id", "ip_id", "type", "event_name", "action_name", "delta", "group_id", "date_added"),
        _legacy("lead_points_change_log", {"name": "event_name"}),
        ("id", "date_added"),
    ),
    "lead_stages_change_log": Table(
        ("id", "lead_id", "event_name", "action_name", "stage_id", "date_added"),
        _events(("stage.changed",), _stage_change),
        ("id", "date_added"),
    ),
    "lead_utmtags": Table(("id", "date_added", "lead_id") + tuple(UTM_COLUMNS), _contacts(_utm_tags), ("lead_id",)),
    "page_hits": Table(
        HIT + HIT_REST + ("source", "source_id", "query", "device_id"), _legacy("page_hits"), ("id", "date_hit")
    ),
    "page_redirects": Table(("id", "redirect_id", "url", "hits", "unique_hits")),
    "point_lead_action_log": Table(
        ("point_id", "lead_id", "ip_id", "date_fired"), _events(("point.gained",), _point_action), ("date_fired",)
    ),
    "point_lead_event_log": Table(
        ("event_id", "lead_id", "ip_id", "date_fired"), _events(("point.gained",), _trigger_events), ("date_fired",)
    ),
    "push_notification_stats": Table(
        ("id", "notification_id", "lead_id", "list_id", "ip_id", "date_sent", "date_read", "is_clicked")
        + ("date_clicked", "retry_count")
        + MESSAGE_STAT
        + ("click_count", "last_clicked", "click_details")
    ),
    "sms_message_stats": Table(
        ("id", "sms_id", "lead_id", "list_id", "ip_id", "date_sent", "is_failed") + MESSAGE_STAT + ("details",),
        _events(("sms.sent", "sms.failed"), _sms),
        ("id", "date_sent"),
    ),
    "stage_lead_action_log": Table(("stage_id", "lead_id", "ip_id", "date_fired")),
    "tweet_stats": Table(
        ("id", "tweet_id", "twitter_tweet_id", "lead_id", "handle", "date_sent", "is_failed", "retry_count")
        + ("source", "source_id", "favorite_count", "retweet_count", "response_details"),
        needs=TWEET_NEEDS,
    ),
    "video_hits": Table(VIDEO + VIDEO_REST + ("time_watched", "duration", "query")),
    "webhook_logs": Table(
        ("id", "webhook_id", "status_code", "date_added", "note", "runtime"),
        _hook_logs,
        ("webhook_id",),
        needs=WEBHOOK_NEEDS,
    ),
}
EMPTY = tuple(name for name, table in TABLES.items() if table.read is None)  # nothing of them is kept


def catalogue() -> Doc:
    """`{"availableTables", "tableColumns"}`: every table of Mautic's catalogue, sorted, and its columns."""
    return {"availableTables": sorted(TABLES), "tableColumns": {name: TABLES[name].names() for name in sorted(TABLES)}}


def _require(table: Table, ctx: Context) -> None:
    """Forbidden unless the caller holds what the table needs (an administrator for `ADMIN`)."""
    if table.needs == ADMIN:
        if not access.unrestricted(ctx):
            raise Forbidden()
        return
    access.require_any(ctx, table.needs)


def _descending(order: JSON, table: Table) -> bool:
    """True for descending: Mautic's `order[0][col|dir]`, by a column the table is read in the order of."""
    entries = list(order.values()) if isinstance(order, dict) else order if isinstance(order, list) else []
    if not entries:
        return False
    first = entries[0] if isinstance(entries[0], dict) else {}
    if first.get("col") not in table.order:
        allowed = ", ".join(table.order) or "no column (it is read as stored)"
        raise invalid("order[0][col]", f"This table is ordered by {allowed}.")
    direction = str(first.get("dir") or "ASC").upper()
    if direction not in ("ASC", "DESC"):
        raise invalid("order[0][dir]", "This value should be asc or desc.")
    return direction == "DESC"


def _page(rows: Iterable[Row], conditions: Sequence[Condition], start: int, limit: int) -> Doc:
    found: list[Row] = []
    for row in rows:
        if all(test(row[col], value) for col, test, value in conditions):
            found.append(row)
            if len(found) > start + limit:
                break
    return {"total": len(found), "stats": found[start : start + limit]}


def rows(name: str, start: int, limit: int | None, order: JSON, where: JSON, ctx: Context) -> Doc:
    """`{"total", "stats": [...]}` of one table (paging, `order` and `where` as `stats_tables.rows`);
    NotFound for a table outside the catalogue, Forbidden without the table's permission."""
    table = TABLES.get(name)
    if table is None:
        raise NotFound(f"No stats table {name}; GET /api/stats lists them.")
    _require(table, ctx)
    conditions = stats_tables.where_conditions(where, table.columns)
    descending = _descending(order, table)
    limit = min(limit or config.MAX_PAGE_LIMIT, config.MAX_PAGE_LIMIT)
    if start >= stats_tables.MAX_EVENTS_READ:
        raise too_much(start)
    if table.read is None:
        return {"total": 0, "stats": []}
    contact_id = stats_tables.contact_of(conditions) if "lead_id" in table.columns else None
    read = table.read(descending, contact_id, ctx, too_much(start))
    return _page((_shaped(table.columns, row) for row in read), conditions, start, limit)
