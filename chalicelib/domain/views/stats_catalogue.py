"""Mautic's whole stats catalogue (`GET /stats`, `GET /stats/<table>`): every table its bundles'
`onStatsFetch` subscribers register, with the columns Mautic lists (its Doctrine columns, tracking
hashes out), each answered from what this service stores (docs/activity-and-stats.md):

- event tables: the timeline events of one type (the all-contacts feed, or one contact's timeline
  for `where lead_id eq N`), through `messaging/stats_tables.py` for the tables it had before
  (`stats_event_tables.py`);
- contact tables: entries kept in the contact document (segments, automations, companies, devices,
  addresses, UTM tags, do-not-contact), read contact by contact in id order (`stats_contact_tables.py`);
- `webhook_logs`: the delivery logs of the hooks the caller may view, hook by hook (`stats_contact_tables.py`);
- tables of which nothing is kept (`EMPTY`): a well-formed empty answer.

This module holds the catalogue (each table's columns, order and access) and its entry points,
`catalogue()` and `rows()`.

Access as Mautic's subscribers decide it: contact tables need `lead:leads:viewother` (they show
every contact), `webhook_logs` a webhook view (an own-only caller sees their hooks' logs),
`tweet_stats` a tweet view, `audit_log` an administrator.
"""

from collections.abc import Iterable, Sequence
from dataclasses import field

from chalicelib import config
from chalicelib.domain.kernel import access
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Forbidden, invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import stats_tables
from chalicelib.domain.messaging.stats_tables import Condition, Row, db_value, too_much
from chalicelib.domain.views.stats_contact_tables import DEVICE_COLUMNS, FREQUENCY_COLUMNS, UTM_COLUMNS
from chalicelib.domain.views.stats_contact_tables import READERS as KEPT
from chalicelib.domain.views.stats_event_tables import READERS as EVENTS
from chalicelib.domain.views.stats_event_tables import Reader
from chalicelib.records import record

CONTACT_TABLE_NEEDS = ("lead:leads:viewother",)
WEBHOOK_NEEDS = ("webhook:webhooks:viewown", "webhook:webhooks:viewother")
TWEET_NEEDS = ("mauticSocial:tweets:viewown", "mauticSocial:tweets:viewother")
ADMIN = ("admin",)  # no permission name: only an administrator
ANY_NEEDS = CONTACT_TABLE_NEEDS + WEBHOOK_NEEDS + TWEET_NEEDS  # the routes' (Holds); each table checks its own
UTM = ("utm_campaign", "utm_content", "utm_medium", "utm_source", "utm_term")
HIT_PLACE = ("country", "region", "city", "isp", "organization", "code", "referer", "url")


@record
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


def _shaped(columns: Sequence[str], row: Doc) -> Row:
    return {column: db_value(row.get(column)) for column in columns}


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
        EVENTS["asset_downloads"],
        ("id", "date_download"),
    ),
    "audit_log": Table(
        ("id", "user_id", "user_name", "bundle", "object", "object_id", "action", "details", "date_added")
        + ("ip_address",),
        needs=ADMIN,
    ),
    "campaign_lead_event_log": Table(
        CAMPAIGN_LOG + CAMPAIGN_LOG_REST, EVENTS["campaign_lead_event_log"], ("id", "date_triggered")
    ),
    "campaign_leads": Table(
        ("campaign_id", "lead_id", "date_added", "manually_removed", "manually_added", "date_last_exited")
        + ("rotation",),
        KEPT["campaign_leads"],
        ("lead_id",),
    ),
    "channel_url_trackables": Table(("redirect_id", "channel_id", "channel", "hits", "unique_hits")),
    "companies_leads": Table(
        ("company_id", "lead_id", "date_added", "is_primary"), KEPT["companies_leads"], ("lead_id",)
    ),
    "dynamic_content_lead_data": Table(("id", "date_added", "lead_id", "dynamic_content_id", "slot")),
    "dynamic_content_stats": Table(
        ("id", "dynamic_content_id", "lead_id", "date_sent")
        + MESSAGE_STAT
        + ("sent_count", "last_sent")
        + ("sent_details",)
    ),
    "email_stat_replies": Table(
        ("id", "stat_id", "date_replied", "message_id"), EVENTS["email_stat_replies"], ("id", "date_replied")
    ),
    "email_stats": Table(
        EMAIL_ROW,
        EVENTS["email_stats"],
        ("id", "date_sent"),
        listed=EMAIL_ROW + ("tokens", "copy_id"),
    ),
    "email_stats_devices": Table(
        ("id", "device_id", "stat_id", "ip_id", "date_opened"), EVENTS["email_stats_devices"], ("id", "date_opened")
    ),
    "focus_stats": Table(
        ("id", "focus_id", "type", "type_id", "date_added", "lead_id"),
        EVENTS["focus_stats"],
        ("id", "date_added"),
    ),
    "form_submissions": Table(
        ("id", "form_id", "ip_id", "lead_id", "tracking_id", "date_submitted", "referer", "page_id"),
        EVENTS["form_submissions"],
        ("id", "date_submitted"),
    ),
    "ip_addresses": Table(("id", "ip_address", "ip_details"), KEPT["ip_addresses"]),
    "lead_categories": Table(
        ("id", "category_id", "lead_id", "date_added", "manually_removed", "manually_added"),
        KEPT["lead_categories"],
        ("lead_id",),
    ),
    "lead_companies_change_log": Table(
        ("id", "lead_id", "type", "event_name", "action_name", "company_id", "date_added")
    ),
    "lead_devices": Table(
        ("id", "lead_id", "date_added") + tuple(DEVICE_COLUMNS) + ("tracking_id",), KEPT["lead_devices"], ("lead_id",)
    ),
    "lead_donotcontact": Table(
        ("id", "lead_id", "date_added", "reason", "channel", "channel_id", "comments"),
        KEPT["lead_donotcontact"],
        ("lead_id",),
    ),
    "lead_event_log": Table(
        ("id", "user_id", "user_name", "bundle", "object", "action", "object_id", "date_added", "properties")
        + ("lead_id",),
        EVENTS["lead_event_log"],
        ("id", "date_added"),
    ),
    "lead_frequencyrules": Table(
        ("id", "lead_id", "date_added") + tuple(FREQUENCY_COLUMNS), KEPT["lead_frequencyrules"], ("lead_id",)
    ),
    "lead_lists_leads": Table(
        ("leadlist_id", "lead_id", "date_added", "manually_removed", "manually_added"),
        KEPT["lead_lists_leads"],
        ("lead_id",),
    ),
    "lead_points_change_log": Table(
        ("id", "lead_id", "ip_id", "type", "event_name", "action_name", "delta", "group_id", "date_added"),
        EVENTS["lead_points_change_log"],
        ("id", "date_added"),
    ),
    "lead_stages_change_log": Table(
        ("id", "lead_id", "event_name", "action_name", "stage_id", "date_added"),
        EVENTS["lead_stages_change_log"],
        ("id", "date_added"),
    ),
    "lead_utmtags": Table(("id", "date_added", "lead_id") + tuple(UTM_COLUMNS), KEPT["lead_utmtags"], ("lead_id",)),
    "page_hits": Table(
        HIT + HIT_REST + ("source", "source_id", "query", "device_id"), EVENTS["page_hits"], ("id", "date_hit")
    ),
    "page_redirects": Table(("id", "redirect_id", "url", "hits", "unique_hits")),
    "point_lead_action_log": Table(
        ("point_id", "lead_id", "ip_id", "date_fired"), EVENTS["point_lead_action_log"], ("date_fired",)
    ),
    "point_lead_event_log": Table(
        ("event_id", "lead_id", "ip_id", "date_fired"), EVENTS["point_lead_event_log"], ("date_fired",)
    ),
    "push_notification_stats": Table(
        ("id", "notification_id", "lead_id", "list_id", "ip_id", "date_sent", "date_read", "is_clicked")
        + ("date_clicked", "retry_count")
        + MESSAGE_STAT
        + ("click_count", "last_clicked", "click_details")
    ),
    "sms_message_stats": Table(
        ("id", "sms_id", "lead_id", "list_id", "ip_id", "date_sent", "is_failed") + MESSAGE_STAT + ("details",),
        EVENTS["sms_message_stats"],
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
        KEPT["webhook_logs"],
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


@record
class Order:
    """Mautic's `order[0][col|dir]`: `column` None when the table's own read order serves (no order, or
    a column of `Table.order`), else the column the rows are sorted by after the read."""

    column: str | None
    descending: bool


def _order(order: JSON, table: Table) -> Order:
    """The order asked for: any of the table's columns, ascending unless `dir` is `desc`."""
    entries = list(order.values()) if isinstance(order, dict) else order if isinstance(order, list) else []
    first = entries[0] if entries and isinstance(entries[0], dict) else {}
    if not first:
        return Order(None, False)
    column = first.get("col")
    if column not in table.columns and column not in table.listed:
        raise invalid("order[0][col]", f"This table has no column {column!r}.")
    direction = str(first.get("dir") or "ASC").upper()
    if direction not in ("ASC", "DESC"):
        raise invalid("order[0][dir]", "This value should be asc or desc.")
    return Order(None if column in table.order else str(column), direction == "DESC")


def _sort_key(value: str | None) -> tuple[int, float, str]:
    """MySQL's order of a column's values: NULL first, numbers by value, then text (case-insensitive)."""
    if value is None:
        return (0, 0.0, "")
    try:
        return (1, float(value), "")
    except ValueError:
        return (2, 0.0, value.lower())


def _sorted(rows: Iterable[Row], order: Order) -> list[Row]:
    """Every row (the read is bounded by MAX_EVENTS_READ) sorted by `order.column`; ties keep the read order."""
    column = str(order.column)
    return sorted(rows, key=lambda row: _sort_key(row.get(column)), reverse=order.descending)


def _matches(row: Row, conditions: Sequence[Condition]) -> bool:
    return all(test(row[col], value) for col, test, value in conditions)


def _page(rows: Iterable[Row], conditions: Sequence[Condition], start: int, limit: int) -> Doc:
    found: list[Row] = []
    for row in rows:
        if _matches(row, conditions):
            found.append(row)
            if len(found) > start + limit:
                break
    return {"total": str(len(found)), "stats": found[start : start + limit]}  # Mautic: getRows' raw COUNT


def rows(name: str, start: int, limit: int | None, order: JSON, where: JSON, ctx: Context) -> Doc:
    """`{"total", "stats": [...]}` of one table (paging, `order` and `where` as `stats_tables.rows`);
    for a table outside the catalogue the catalogue itself, as Mautic's StatsApiController answers
    when no subscriber takes the table; Forbidden without the table's permission."""
    table = TABLES.get(name)
    if table is None:
        return catalogue()
    _require(table, ctx)
    conditions = stats_tables.where_conditions(where, table.columns)
    wanted = _order(order, table)
    limit = min(limit or config.active().MAX_PAGE_LIMIT, config.active().MAX_PAGE_LIMIT)
    if start >= stats_tables.MAX_EVENTS_READ:
        raise too_much(start)
    if table.read is None:
        return {"total": "0", "stats": []}
    contact_id = stats_tables.contact_of(conditions) if "lead_id" in table.columns else None
    read = table.read(wanted.descending and wanted.column is None, contact_id, ctx, too_much(start))
    shaped: Iterable[Row] = (_shaped(table.columns, row) for row in read)
    if wanted.column is not None:
        shaped = _sorted((row for row in shaped if _matches(row, conditions)), wanted)
    return _page(shaped, conditions, start, limit)
