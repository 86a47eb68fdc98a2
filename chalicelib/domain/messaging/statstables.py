"""Mautic's stats API (`GET /stats`, `GET /stats/<table>`: StatsApiController): rows of Mautic's
statistics tables, built from what this service stores.

Every table but `email_stats` is a view of the timeline events (the all-contacts feed, or one
contact's timeline when `where` names `lead_id eq N`); `email_stats` reads the send record of each
`email.sent` event. Rows hold Mautic's column names and database strings. A table is read in id
order (`order` by `id` or its date column, ASC by default), filtered by `where`, and only until
the page is full plus one row: `total` is exact when the table ended within that read, else it
counts up to that one more row (the page after exists).
"""
import json
import re

from chalicelib import config
from chalicelib.domain.kernel import clock, timeline
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.messaging import emailstats
from chalicelib.domain.segments import patterns


def db_value(value):
    """A value as a database row holds it: strings, 0/1 for booleans, JSON for structures."""
    if value is None or isinstance(value, str) and not re.match(r"^\d{4}-\d\d-\d\dT", value):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if isinstance(value, str):
        return clock.parse(value).strftime("%Y-%m-%d %H:%M:%S")
    return str(value)


def _submission(e):
    d, sub = e["details"], e["details"].get("submission") or {}
    return {"id": sub.get("id"), "form_id": (d.get("form") or {}).get("id"), "lead_id": e["contactId"],
            "ip_address": sub.get("ipAddress"), "tracking_id": None, "page_id": None, "referer": sub.get("referer"),
            "date_submitted": sub.get("dateSubmitted") or e["timestamp"]}


def _hit(e):
    d = e["details"]
    return {"id": e["id"], "page_id": (d.get("page") or {}).get("id"), "redirect_id": None, "email_id": None,
            "lead_id": e["contactId"], "date_hit": e["timestamp"], "url": d.get("url"),
            "url_title": d.get("title") or (d.get("page") or {}).get("title"), "referer": d.get("referer"),
            "page_language": d.get("language"), "query": d.get("query") or {}}


def _points(e):
    d = e["details"]
    return {"id": e["id"], "lead_id": e["contactId"], "type": d.get("type") or "api", "name": e.get("eventLabel"),
            "action_name": d.get("action") or d.get("operator"), "delta": d.get("newPoints", 0) - d.get("oldPoints", 0),
            "date_added": e["timestamp"]}


def _automation(e):
    d = e["details"]
    return {"id": e["id"], "event_id": d.get("eventId"), "lead_id": e["contactId"],
            "campaign_id": d.get("automationId"),
            "rotation": 1, "date_triggered": e["timestamp"], "is_scheduled": False, "trigger_date": None,
            "system_triggered": True, "non_action_path_taken": d.get("status") == "no",
            "metadata": {"status": d.get("status"), "reason": d.get("reason")}, "channel": None, "channel_id": None}


def _event(e):
    bundle, _, action = e["event"].rpartition(".")
    return {"id": e["id"], "lead_id": e["contactId"], "bundle": bundle or e["event"], "object": bundle or e["event"],
            "action": action, "object_id": None, "date_added": e["timestamp"], "properties": e.get("details") or {}}


EMAIL_COLUMNS = {"id": "id", "email_address": "emailAddress", "date_sent": "dateSent", "is_read": "isRead",
                 "is_failed": "isFailed", "viewed_in_browser": "viewedInBrowser", "date_read": "dateRead",
                 "tracking_hash": "trackingHash", "retry_count": "retryCount", "source": "source",
                 "source_id": "sourceId", "open_count": "openCount", "last_opened": "lastOpened"}


def _email_stat(e):
    stat = emailstats.get("email", e["details"]["emailId"], e["details"]["statId"])
    if stat is None:
        return None
    row = {column: stat.get(key) for column, key in EMAIL_COLUMNS.items()}
    return dict(row, email_id=stat["email"]["id"], lead_id=stat["lead"]["id"])


# table: (timeline event type or None for all, date column, columns, row builder)
TABLES = {
    "email_stats": ("email.sent", "date_sent", ("email_id", "lead_id") + tuple(EMAIL_COLUMNS), _email_stat),
    "form_submissions": ("form.submitted", "date_submitted", ("id", "form_id", "lead_id", "ip_address", "tracking_id",
                                                              "page_id", "referer", "date_submitted"), _submission),
    "page_hits": ("page.hit", "date_hit", ("id", "page_id", "redirect_id", "email_id", "lead_id", "date_hit", "url",
                                           "url_title", "referer", "page_language", "query"), _hit),
    "lead_points_change_log": ("point.gained", "date_added", ("id", "lead_id", "type", "name", "action_name",
                                                              "delta", "date_added"), _points),
    "campaign_lead_event_log": ("campaign.event", "date_triggered",
                                ("id", "event_id", "lead_id", "campaign_id", "rotation", "date_triggered",
                                 "is_scheduled", "trigger_date", "system_triggered", "non_action_path_taken",
                                 "metadata", "channel", "channel_id"), _automation),
    "lead_event_log": (None, "date_added", ("id", "lead_id", "bundle", "object", "action", "object_id", "date_added",
                                            "properties"), _event),
}


def tables():
    """`{"availableTables", "tableColumns"}`: the list answer of `GET /stats`."""
    return {"availableTables": sorted(TABLES), "tableColumns": {name: list(t[2]) for name, t in sorted(TABLES.items())}}


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _compare(left, right):
    a, b = number(left), number(right)
    return (a > b) - (a < b) if a is not None and b is not None else (str(left) > str(right)) - (str(left) < str(right))


def _values(value):
    return value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else \
        str(value).split(",")


TESTS = {
    "eq": lambda v, w: v is not None and _compare(v, w) == 0, "neq": lambda v, w: v is None or _compare(v, w) != 0,
    "gt": lambda v, w: v is not None and _compare(v, w) > 0, "gte": lambda v, w: v is not None and _compare(v, w) >= 0,
    "lt": lambda v, w: v is not None and _compare(v, w) < 0, "lte": lambda v, w: v is not None and _compare(v, w) <= 0,
    "like": lambda v, w: v is not None and patterns.like(str(w))(v),
    "notLike": lambda v, w: v is None or not patterns.like(str(w))(v),
    "in": lambda v, w: v is not None and any(_compare(v, x) == 0 for x in _values(w)),
    "notIn": lambda v, w: v is None or all(_compare(v, x) != 0 for x in _values(w)),
    "isNull": lambda v, w: v is None, "isNotNull": lambda v, w: v is not None,
}


def _conditions(where, columns):
    """[(column, test, value)] of Mautic's `where[i][col|expr|val]`; a 400 naming the bad entry."""
    entries = list(where.values()) if isinstance(where, dict) else where if isinstance(where, list) else []
    if where not in (None, "") and not entries:
        raise invalid("where", "where is a list of {col, expr, val}.")
    found = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("col") not in columns:
            raise invalid(f"where[{i}][col]", f"Unknown column; the columns are {', '.join(columns)}.")
        expr = entry.get("expr") or "eq"
        if expr not in TESTS:
            raise invalid(f"where[{i}][expr]", f"Unknown expression; use one of {', '.join(TESTS)}.")
        found.append((entry["col"], TESTS[expr], entry.get("val")))
    return found


def _direction(order, date_column):
    """True for descending: Mautic's `order[0][col|dir]`, by `id` or the table's date column."""
    entries = list(order.values()) if isinstance(order, dict) else order if isinstance(order, list) else []
    if not entries:
        return False
    first = entries[0] if isinstance(entries[0], dict) else {}
    if first.get("col") not in ("id", date_column):
        raise invalid("order[0][col]", f"Stats are ordered by id or {date_column}.")
    direction = str(first.get("dir") or "ASC").upper()
    if direction not in ("ASC", "DESC"):
        raise invalid("order[0][dir]", "This value should be asc or desc.")
    return direction == "DESC"


def _contact(conditions):
    """The contact id a `lead_id eq N` condition names, or None."""
    for column, test, value in conditions:
        if column == "lead_id" and test is TESTS["eq"] and str(value).isdigit():
            return int(value)
    return None


def table_rows(table, descending=False, contact_id=None):
    """The rows of a table in event (time) order, as database strings: read from one contact's
    timeline (`contact_id`) or the all-contacts feed, lazily, so a reader stops where it wants."""
    event_type, _, columns, build = TABLES[table]
    events = timeline.all_events(descending) if contact_id is None else \
        timeline.contact_events(contact_id, descending)
    for event in events:
        built = build(event) if event_type in (None, event["event"]) else None
        if built is not None:
            yield {k: db_value(built.get(k)) for k in columns}


def rows(table, start, limit, order, where):
    """`{"total", "stats": [...]}` of one table (Mautic answers under `stats`, its default items name)."""
    if table not in TABLES:
        raise NotFound(f"No stats table {table}; GET /api/stats lists them.")
    _, date_column, columns, _ = TABLES[table]
    conditions = _conditions(where, columns)
    limit = min(limit or config.MAX_PAGE_LIMIT, config.MAX_PAGE_LIMIT)
    found = []
    for row in table_rows(table, _direction(order, date_column), _contact(conditions)):
        if all(test(row[col], value) for col, test, value in conditions):
            found.append(row)
            if len(found) > start + limit:
                break
    return {"total": len(found), "stats": found[start:start + limit]}
