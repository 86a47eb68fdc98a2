"""Mautic's stats API (`GET /stats`, `GET /stats/<table>`: StatsApiController): rows of Mautic's
statistics tables, built from what this service stores.

Every table but `email_stats` is a view of the timeline events (the all-contacts feed, or one
contact's timeline when `where` names `lead_id eq N`); `email_stats` reads the send record of each
`email.sent` event (a BatchGetItem per 100). Rows hold Mautic's column names and database strings.
A table is read in id order (`order` by `id` or its date column, ASC by default), filtered by
`where`, and only until the page is full plus one row: `total` is exact when the table ended within
that read, else it counts up to that one more row (the page after exists). One request reads at
most `MAX_EVENTS_READ` events. Tracking hashes are no column: a hash opens the web view and the
unsubscribe page of its contact as that contact (`docs/views.md`).
"""

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from chalicelib import config
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import clock, timeline
from chalicelib.domain.kernel.errors import NotFound, ValidationError, invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_stats
from chalicelib.domain.segments import patterns
from chalicelib.store import port as store

MAX_EVENTS_READ = 50_000  # timeline events one request may read before it is refused (docs/storage.md)
BATCH = 100  # BatchGetItem's keys
SECRET = r"(?i)(hash|secret|token|password)$"  # detail keys never shown
T = TypeVar("T")
Row = dict[str, str | None]  # a row of a table: column -> database string
Build = Callable[[Sequence[Doc]], list[Doc]]  # the rows (by column, before `db_value`) of some timeline events
Table = tuple[str | None, str, tuple[str, ...], Build]  # (event type or None for all, date column, columns, build)
Test = Callable[[JSON, JSON], bool]  # a `where` expression: (row value, given value) -> whether it passes
Condition = tuple[str, Test, JSON]  # (column, test, given value)


def db_value(value: JSON) -> str | None:
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


def _submission(e: Doc) -> Doc:
    d, sub = e["details"], e["details"].get("submission") or {}
    return {
        "id": sub.get("id"),
        "form_id": (d.get("form") or {}).get("id"),
        "lead_id": e["contactId"],
        "ip_address": sub.get("ipAddress"),
        "tracking_id": None,
        "page_id": None,
        "referer": sub.get("referer"),
        "date_submitted": sub.get("dateSubmitted") or e["timestamp"],
    }


def _hit(e: Doc) -> Doc:
    d = e["details"]
    return {
        "id": e["id"],
        "page_id": (d.get("page") or {}).get("id"),
        "redirect_id": None,
        "email_id": None,
        "lead_id": e["contactId"],
        "date_hit": e["timestamp"],
        "date_left": None,  # derived from the next hit as read (views/stats_event_tables.py hits_left)
        "url": d.get("url"),
        "url_title": d.get("title") or (d.get("page") or {}).get("title"),
        "referer": d.get("referer"),
        "page_language": d.get("language"),
        "query": d.get("query") or {},
    }


def _points(e: Doc) -> Doc:
    d = e["details"]
    return {
        "id": e["id"],
        "lead_id": e["contactId"],
        "type": d.get("type") or "api",
        "name": e.get("eventLabel"),
        "action_name": d.get("action") or d.get("operator"),
        "delta": d.get("newPoints", 0) - d.get("oldPoints", 0),
        "group_id": (d.get("group") or {}).get("id"),  # a change of a point group's score
        "date_added": e["timestamp"],
    }


def _automation(e: Doc) -> Doc:
    d = e["details"]
    return {
        "id": e["id"],
        "event_id": d.get("eventId"),
        "lead_id": e["contactId"],
        "campaign_id": d.get("automationId"),
        "rotation": 1,
        "date_triggered": e["timestamp"],
        "is_scheduled": False,
        "trigger_date": None,
        "system_triggered": True,
        "non_action_path_taken": d.get("status") == "no",
        "metadata": {"status": d.get("status"), "reason": d.get("reason")},
        "channel": None,
        "channel_id": None,
    }


def _public(details: JSON) -> JSON:
    """Event details without secrets (tracking hashes open a contact's pages as that contact)."""
    if isinstance(details, dict):
        return {k: _public(v) for k, v in details.items() if not re.search(SECRET, k)}
    if isinstance(details, list):
        return [_public(v) for v in details]
    return details


def _event(e: Doc) -> Doc:
    bundle, _, action = e["event"].rpartition(".")
    return {
        "id": e["id"],
        "lead_id": e["contactId"],
        "bundle": bundle or e["event"],
        "object": bundle or e["event"],
        "action": action,
        "object_id": None,
        "date_added": e["timestamp"],
        "properties": _public(e.get("details") or {}),
    }


EMAIL_COLUMNS = {
    "id": "id",
    "email_address": "emailAddress",
    "date_sent": "dateSent",
    "is_read": "isRead",
    "is_failed": "isFailed",
    "viewed_in_browser": "viewedInBrowser",
    "date_read": "dateRead",
    "retry_count": "retryCount",
    "source": "source",
    "source_id": "sourceId",
    "open_count": "openCount",
    "last_opened": "lastOpened",
}  # Mautic's but tracking_hash


def _email_stats(events: Sequence[Doc]) -> list[Doc]:
    """The send records of `email.sent` events: one BatchGetItem for them all (at most BATCH)."""
    keys = [(email_stats.kind("email", e["details"]["emailId"]), e["details"]["statId"]) for e in events]
    found = store.batch_get_keys(keys)
    stats = (found.get((kind, int(stat_id))) for kind, stat_id in keys)
    return [
        dict(
            {column: stat.get(key) for column, key in EMAIL_COLUMNS.items()},
            email_id=stat["email"]["id"],
            lead_id=stat["lead"]["id"],
        )
        for stat in stats
        if stat is not None
    ]


BATCHED = ("email_stats",)  # tables whose rows are read per chunk of events (the others read nothing more)


def _each(build: Callable[[Doc], Doc]) -> Build:
    """A builder of many rows from one of a row per event."""
    return lambda events: [build(e) for e in events]


# table: (timeline event type or None for all, date column, columns, builder of the rows of some events)
TABLES: dict[str, Table] = {
    "email_stats": ("email.sent", "date_sent", ("email_id", "lead_id") + tuple(EMAIL_COLUMNS), _email_stats),
    "form_submissions": (
        "form.submitted",
        "date_submitted",
        ("id", "form_id", "lead_id", "ip_address", "tracking_id", "page_id", "referer", "date_submitted"),
        _each(_submission),
    ),
    "page_hits": (
        "page.hit",
        "date_hit",
        (
            "id",
            "page_id",
            "redirect_id",
            "email_id",
            "lead_id",
            "date_hit",
            "date_left",
            "url",
            "url_title",
            "referer",
            "page_language",
            "query",
        ),
        _each(_hit),
    ),
    "lead_points_change_log": (
        "point.gained",
        "date_added",
        ("id", "lead_id", "type", "name", "action_name", "delta", "group_id", "date_added"),
        _each(_points),
    ),
    "campaign_lead_event_log": (
        "campaign.event",
        "date_triggered",
        (
            "id",
            "event_id",
            "lead_id",
            "campaign_id",
            "rotation",
            "date_triggered",
            "is_scheduled",
            "trigger_date",
            "system_triggered",
            "non_action_path_taken",
            "metadata",
            "channel",
            "channel_id",
        ),
        _each(_automation),
    ),
    "lead_event_log": (
        None,
        "date_added",
        ("id", "lead_id", "bundle", "object", "action", "object_id", "date_added", "properties"),
        _each(_event),
    ),
}


def number(value: JSON) -> float | None:
    """A value as a number, or None when it is not one (comparisons and sorting)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _compare(left: JSON, right: JSON) -> int:
    first, second = number(left), number(right)
    if first is not None and second is not None:
        return (first > second) - (first < second)
    return (str(left) > str(right)) - (str(left) < str(right))


def _values(value: JSON) -> list[JSON]:
    return (
        value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else str(value).split(",")
    )


TESTS: dict[str, Test] = {
    "eq": lambda v, w: v is not None and _compare(v, w) == 0,
    "neq": lambda v, w: v is None or _compare(v, w) != 0,
    "gt": lambda v, w: v is not None and _compare(v, w) > 0,
    "gte": lambda v, w: v is not None and _compare(v, w) >= 0,
    "lt": lambda v, w: v is not None and _compare(v, w) < 0,
    "lte": lambda v, w: v is not None and _compare(v, w) <= 0,
    "like": lambda v, w: v is not None and patterns.like(str(w))(v),
    "notLike": lambda v, w: v is None or not patterns.like(str(w))(v),
    "in": lambda v, w: v is not None and any(_compare(v, x) == 0 for x in _values(w)),
    "notIn": lambda v, w: v is None or all(_compare(v, x) != 0 for x in _values(w)),
    "isNull": lambda v, w: v is None,
    "isNotNull": lambda v, w: v is not None,
}


def where_conditions(where: JSON, columns: Sequence[str]) -> list[Condition]:
    """[(column, test, value)] of Mautic's `where[i][col|expr|val]`; a 400 naming the bad entry."""
    entries = list(where.values()) if isinstance(where, dict) else where if isinstance(where, list) else []
    if where not in (None, "") and not entries:
        raise invalid("where", "where is a list of {col, expr, val}.")
    found: list[Condition] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("col") not in columns:
            raise invalid(f"where[{i}][col]", f"Unknown column; the columns are {', '.join(columns)}.")
        expr = entry.get("expr") or "eq"
        if expr not in TESTS:
            raise invalid(f"where[{i}][expr]", f"Unknown expression; use one of {', '.join(TESTS)}.")
        found.append((entry["col"], TESTS[expr], entry.get("val")))
    return found


def _direction(order: JSON, date_column: str) -> bool:
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


def contact_of(conditions: Iterable[Condition]) -> int | None:
    """The contact id a `lead_id eq N` condition names, or None."""
    for column, test, value in conditions:
        if column == "lead_id" and test is TESTS["eq"] and a.digits(str(value)):
            return int(value)
    return None


def chunks(items: Iterable[T], first: int = 10, most: int = BATCH) -> Iterator[list[T]]:
    """Lists of consecutive items, `first` long, then twice as long up to `most`: a reader that stops
    early reads little ahead, a long read batches its lookups by BATCH."""
    chunk: list[T] = []
    size = first
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk, size = [], min(size * 2, most)
    if chunk:
        yield chunk


def too_much(start: int) -> ValidationError:
    """The refusal (400 naming `where`, and `start` past the first page) of a stats request that would
    read more than MAX_EVENTS_READ events."""
    fields = {"start": [f"Pages past {MAX_EVENTS_READ} events are not read; narrow where."]} if start else {}
    fields["where"] = [
        f"Matched too few of the {MAX_EVENTS_READ} events one request may read; narrow it "
        "(lead_id eq N reads one contact's events)."
    ]
    return ValidationError(fields)


def _bounded(events: Iterable[Doc], refusal: Exception) -> Iterator[Doc]:
    for count, event in enumerate(events, start=1):
        if count > MAX_EVENTS_READ:
            raise refusal
        yield event


def table_rows(
    table: str, descending: bool = False, contact_id: int | None = None, refusal: Exception | None = None
) -> Iterator[Row]:
    """The rows of a table in event (time) order, as database strings: read from one contact's
    timeline (`contact_id`) or the all-contacts feed, lazily, so a reader stops where it wants;
    `refusal` (default `too_much`) is raised past MAX_EVENTS_READ events."""
    event_type, _, columns, build = TABLES[table]
    events = timeline.all_events(descending) if contact_id is None else timeline.contact_events(contact_id, descending)
    wanted = (e for e in _bounded(events, refusal or too_much(0)) if event_type in (None, e["event"]))
    for chunk in chunks(wanted, *((10, BATCH) if table in BATCHED else (1, 1))):
        for built in build(chunk):
            yield {k: db_value(built.get(k)) for k in columns}


def rows(table: str, start: int, limit: int | None, order: JSON, where: JSON) -> Doc:
    """`{"total", "stats": [...]}` of one table (Mautic answers under `stats`, its default items name)."""
    if table not in TABLES:
        raise NotFound(f"No stats table {table}; GET /api/stats lists them.")
    _, date_column, columns, _ = TABLES[table]
    conditions = where_conditions(where, columns)
    limit = min(limit or config.active().MAX_PAGE_LIMIT, config.active().MAX_PAGE_LIMIT)
    if start >= MAX_EVENTS_READ:
        raise too_much(start)
    found: list[Row] = []
    for row in table_rows(table, _direction(order, date_column), contact_of(conditions), too_much(start)):
        if all(test(row[col], value) for col, test, value in conditions):
            found.append(row)
            if len(found) > start + limit:
                break
    return {"total": len(found), "stats": found[start : start + limit]}
